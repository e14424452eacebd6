// Tasks: P1 tiny-task throughput on `threads` vs Piscina and each backend's per-task overhead;
// P5 a large typed array put in the driver and read by a task in a worker, vs a raw socket copy.
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";
import { createJobContext } from "../../dist/job.js";
import { add, checksum } from "../fixtures/tasks.js";
import { rawCopyMs } from "../lib/baselines.js";
import { quick, report, scale, want } from "../lib/group.js";
import { perSecondSince, thousands } from "../lib/stats.js";

if (want("P1")) {
  const n = Math.round(20_000 * scale);
  const threads = 2;
  const pool = new Piscina({ filename: fileURLToPath(new URL("../fixtures/piscina-worker.js", import.meta.url)), minThreads: threads, maxThreads: threads });
  await Promise.all(Array.from({ length: 100 }, (_, i) => pool.run({ a: i, b: 1 })));
  let t = performance.now();
  await Promise.all(Array.from({ length: n }, (_, i) => pool.run({ a: i, b: 1 })));
  const piscinaRate = perSecondSince(n, t);
  await pool.destroy();

  const ctx = createJobContext("threads", { maxWorkers: threads });
  await ctx.get(Array.from({ length: 100 }, (_, i) => ctx.run(add, i, 1)));
  t = performance.now();
  const results = await ctx.get(Array.from({ length: n }, (_, i) => ctx.run(add, i, 1)));
  const frayRate = perSecondSince(n, t);
  if (results[n - 1] !== n) throw new Error("wrong results");
  await ctx.shutdown();
  report("P1", `tiny tasks on threads (${threads} workers)`, thousands(frayRate), "tasks/s", `Piscina ${thousands(piscinaRate)} tasks/s`, `${(frayRate / piscinaRate).toFixed(2)}× Piscina`, "≥ 1.0× Piscina", frayRate >= piscinaRate);

  for (const kind of ["sync", "threads", "processes"]) {
    const c = createJobContext(kind, { maxWorkers: 2 });
    for (let i = 0; i < 50; i++) await c.get(c.run(add, i, 1));
    const m = Math.round(1000 * scale) + 50;
    const t0 = performance.now();
    for (let i = 0; i < m; i++) await c.get(c.run(add, i, 1));
    const us = ((performance.now() - t0) * 1000) / m;
    await c.shutdown();
    report("P1", `${kind}: one task run and awaited at a time`, us.toFixed(1), "µs/task", "", "", "(overhead, no goal)", true);
  }
}

if (want("P5")) {
  const bytes = quick ? 32 * 2 ** 20 : 256 * 2 ** 20;
  const mib = bytes / 2 ** 20;
  const array = new Float64Array(bytes / 8).fill(1);
  const rawMs = await rawCopyMs(bytes);

  const ctx = createJobContext("processes", { maxWorkers: 1 });
  await ctx.get(ctx.run(add, 1, 1));
  let t = performance.now();
  const [length, sum] = await ctx.get(ctx.run(checksum, ctx.put(array)));
  const frayMs = performance.now() - t;
  await ctx.shutdown();
  if (length !== array.length || sum !== Math.ceil(array.length / 4096)) throw new Error("array arrived wrong");

  const sharedArray = new Float64Array(new SharedArrayBuffer(bytes)).fill(1);
  const threads = createJobContext("threads", { maxWorkers: 1 });
  await threads.get(threads.run(add, 1, 1));
  t = performance.now();
  const [sharedLength] = await threads.get(threads.run(checksum, threads.put(sharedArray)));
  const threadMs = performance.now() - t;
  await threads.shutdown();
  if (sharedLength !== sharedArray.length) throw new Error("shared array arrived wrong");
  report("P5", `${mib} MiB SharedArrayBuffer Float64Array put → task in a worker thread (no copy)`, threadMs.toFixed(1), "ms", `raw socket copy ${rawMs.toFixed(0)} ms`, `${(rawMs / threadMs).toFixed(0)}× raw`, "zero-copy", true);
  report("P5", `${mib} MiB Float64Array put → task in another process`, (mib / (frayMs / 1000)).toFixed(0), "MiB/s", `raw socket copy ${(mib / (rawMs / 1000)).toFixed(0)} MiB/s`, `${(rawMs / frayMs).toFixed(2)}× raw`, "≥ 0.5× raw", rawMs / frayMs >= 0.5);
}
