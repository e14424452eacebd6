// Tasks: P1 tiny-task throughput and one-at-a-time latency on `threads` and `processes` vs the pools a
// Node user would pick (Piscina, poolifier, tinypool, workerpool), each system in its own fresh process;
// P5 a large typed array put in the driver and read by a task in a worker, vs a raw socket copy.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createJobContext } from "../../dist/job.js";
import { add, checksum } from "../fixtures/tasks.js";
import { rawCopyMs } from "../lib/baselines.js";
import { quick, report, scale, want } from "../lib/group.js";
import { median, thousands } from "../lib/stats.js";

if (want("P1")) {
  const tasks = Math.round(20_000 * scale);
  const sequential = Math.round(5000 * scale);
  const rounds = 3; // also with --quick (7 s): a median of two would be the larger one
  const threadPools = ["piscina", "poolifier", "tinypool", "workerpool"];
  const processPools = ["tinypool-child_process", "workerpool-process"];
  const systems = ["fray-threads", ...threadPools, "fray-processes", ...processPools];
  const runs = p1Rounds(systems, rounds, tasks, sequential, "burst");
  const quietRuns = p1Rounds(systems, rounds, tasks, sequential, "quiet");
  for (const [kind, pools] of [
    ["threads", threadPools],
    ["processes", processPools],
  ]) {
    const fray = runs.get(`fray-${kind}`);
    const rates = pools.map((p) => [p, median(runs.get(p).map((r) => r.rate))]);
    const [fastest, fastestRate] = rates.reduce((a, b) => (b[1] > a[1] ? b : a));
    const frayRate = median(fray.map((r) => r.rate));
    const others = pools.map((p) => `${p} ${spread(runs.get(p), "rate", thousands)}`).join(", ");
    report(
      "P1",
      `tiny tasks on ${kind} (2 workers, ${thousands(tasks)} in flight; median, min–max of ${rounds} fresh processes)`,
      spread(fray, "rate", thousands),
      "tasks/s",
      others,
      `${(frayRate / fastestRate).toFixed(2)}× ${fastest}`,
      "≥ 1.0× fastest pool",
      frayRate >= fastestRate,
    );
    for (const [mode, label] of [
      [runs, "after a burst"],
      [quietRuns, "in a fresh process, no burst"],
    ]) {
      const frayLat = stats(mode.get(`fray-${kind}`));
      const poolLats = pools.map((p) => [p, stats(mode.get(p))]);
      const quickest = (field) => poolLats.reduce((a, b) => (b[1][field] < a[1][field] ? b : a));
      const ratios = ["p50", "mean", "p99"].map((field) => [field, frayLat[field] / quickest(field)[1][field], quickest(field)[0]]);
      const show = (l) => `p50 ${l.p50.toFixed(0)}, mean ${l.mean.toFixed(0)}, p99 ${l.p99.toFixed(0)}`;
      report(
        "P1-latency",
        `one task at a time on ${kind}, ${label} (${sequential} timed after 3,000; medians of ${rounds} fresh processes)`,
        show(frayLat),
        "µs",
        poolLats.map(([p, l]) => `${p} ${show(l)} µs`).join("; "),
        ratios.map(([field, r, pool]) => `${field} ${r.toFixed(2)}× ${pool}`).join(", "),
        "p50, mean ≤ 1.2×, p99 ≤ 2× fastest pool",
        ratios[0][1] <= 1.2 && ratios[1][1] <= 1.2 && ratios[2][1] <= 2,
      );
    }
  }
}

/** Medians over a system's rounds of its p50, mean and p99. */
function stats(rows) {
  return { p50: median(rows.map((r) => r.p50)), mean: median(rows.map((r) => r.mean)), p99: median(rows.map((r) => r.p99)) };
}

/** Runs each system in its own fresh process, alternating systems, `rounds` times: name → [{ rate, p50, mean, p99 }]. */
function p1Rounds(systems, rounds, tasks, sequential, mode) {
  const child = fileURLToPath(new URL("../fixtures/p1-system.js", import.meta.url));
  const runs = new Map(systems.map((s) => [s, []]));
  for (let r = 0; r < rounds; r++) {
    for (const s of systems) {
      const out = execFileSync(process.execPath, [child, s, String(tasks), String(sequential), mode], { encoding: "utf8", timeout: 60_000 });
      runs.get(s).push(JSON.parse(out.trim().split("\n").at(-1)));
    }
  }
  return runs;
}

/** "median (min–max)" of one field over a system's rounds. */
function spread(rows, field, show) {
  const xs = rows.map((r) => r[field]);
  return `${show(median(xs))} (${show(Math.min(...xs))}–${show(Math.max(...xs))})`;
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
  report(
    "P5",
    `${mib} MiB SharedArrayBuffer Float64Array put → task in a worker thread (no copy)`,
    threadMs.toFixed(1),
    "ms",
    `raw socket copy ${rawMs.toFixed(0)} ms`,
    `${(rawMs / threadMs).toFixed(0)}× raw`,
    "zero-copy",
    true,
  );
  report(
    "P5",
    `${mib} MiB Float64Array put → task in another process`,
    (mib / (frayMs / 1000)).toFixed(0),
    "MiB/s",
    `raw socket copy ${(mib / (rawMs / 1000)).toFixed(0)} MiB/s`,
    `${(rawMs / frayMs).toFixed(2)}× raw`,
    "≥ 0.5× raw",
    rawMs / frayMs >= 0.5,
  );
}
