// Tasks: P1 tiny-task throughput and P1-latency one-at-a-time latency on `threads` and `processes` vs the pools a
// Node user would pick (Piscina, poolifier, tinypool, workerpool), each system in its own fresh process;
// P5 a large typed array put in the driver and read by a task in a worker, vs the same hand-off without fray:
// a raw Unix-socket copy to another process, a raw worker thread handed the same SharedArrayBuffer.
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { fileURLToPath } from "node:url";
import { createJobContext } from "../../dist/job.js";
import { add, checksum } from "../fixtures/tasks.js";
import { rawCopyMs } from "../lib/baselines.js";
import { quick, report, scale, want } from "../lib/group.js";
import { median, thousands } from "../lib/stats.js";

// P1-latency: where the kernel places the driver's thread and a worker (thread or process) moves a round trip
// on this VM by ~25 µs each way (a wake-up of the other core), more than any system's own cost, and it is
// random per process: unpinned, a system's median of 3 reads ~27 µs or ~80 µs as its processes happened to
// land. So each fresh process measures its latency in every placement, in turn, the same way for every system
// (placement.js, as P2 does): first unpinned (where the kernel puts them, as a user would run), then, in
// alternating order per round, "workers on another core" (this process on core 0, the workers on core 1) and
// "all on one core" (everything on core 0), each after its own warm-up. Only the pinned rows have a goal.
const placementLabels = {
  split: ", workers on another core (taskset: the driver on core 0, the workers on core 1)",
  "one-core": ", all on one core (taskset: everything on core 0)",
  unpinned: " (unpinned, placement as the kernel chooses; report)",
};

if (want("P1", "P1-latency")) {
  const tasks = Math.round(20_000 * scale);
  const sequential = Math.round(5000 * scale);
  const rounds = 3; // also with --quick (7 s): a median of two would be the larger one
  const threadPools = ["piscina", "poolifier", "tinypool", "workerpool"];
  const processPools = ["tinypool-child_process", "workerpool-process"];
  const systems = ["fray-threads", ...threadPools, "fray-processes", ...processPools];
  const latencies = want("P1-latency");
  const runs = p1Rounds(systems, rounds, tasks, sequential, "burst", latencies);
  const quietRuns = latencies ? p1Rounds(systems, rounds, tasks, sequential, "quiet", latencies) : null;
  for (const [kind, pools] of [
    ["threads", threadPools],
    ["processes", processPools],
  ]) {
    const fray = runs.get(`fray-${kind}`);
    const rates = pools.map((p) => [p, median(runs.get(p).map((r) => r.rate))]);
    const [fastest, fastestRate] = rates.reduce((a, b) => (b[1] > a[1] ? b : a));
    const frayRate = median(fray.map((r) => r.rate));
    const others = pools.map((p) => `${p} ${spread(runs.get(p), "rate", thousands)}`).join(", ");
    if (want("P1")) {
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
    }
    if (!latencies) continue;
    for (const [mode, label] of [
      [runs, "after a burst"],
      [quietRuns, "in a fresh process, no burst"],
    ]) {
      for (const [placement, where] of Object.entries(placementLabels)) {
        const frayLat = stats(mode.get(`fray-${kind}`), placement);
        const poolLats = pools.map((p) => [p, stats(mode.get(p), placement)]);
        const quickest = (field) => poolLats.reduce((a, b) => (b[1][field] < a[1][field] ? b : a));
        const ratios = ["p50", "mean", "p99"].map((field) => [field, frayLat[field] / quickest(field)[1][field], quickest(field)[0]]);
        const show = (l) => `p50 ${l.p50.toFixed(0)}, mean ${l.mean.toFixed(0)}, p99 ${l.p99.toFixed(0)}`;
        const pinned = placement !== "unpinned";
        report(
          "P1-latency",
          `one task at a time on ${kind}, ${label}${where} (${sequential} timed after 3,000; medians of ${rounds} fresh processes; ` +
            `fray p50 ${p50Spread(mode.get(`fray-${kind}`), placement)})`,
          show(frayLat),
          "µs",
          poolLats.map(([p, l]) => `${p} ${show(l)} µs (p50 ${p50Spread(mode.get(p), placement)})`).join("; "),
          ratios.map(([field, r, pool]) => `${field} ${r.toFixed(2)}× ${pool}`).join(", "),
          pinned ? "p50, mean ≤ 1.2×, p99 ≤ 2× fastest pool" : "(report)",
          pinned ? ratios[0][1] <= 1.2 && ratios[1][1] <= 1.2 && ratios[2][1] <= 2 : null,
        );
      }
    }
  }
}

/** Medians over a system's rounds of its p50, mean and p99 in `placement`. */
function stats(rows, placement) {
  const field = (f) => median(rows.map((r) => r.latency[placement][f]));
  return { p50: field("p50"), mean: field("mean"), p99: field("p99") };
}

/**
 * Runs each system in its own fresh process, alternating systems, `rounds` times: name → [{ rate, latency: { placement: { p50, mean, p99 } } }].
 * With `latencies`, every placement in each process, unpinned first (before any pinning), then the two pinned ones in an
 * order that alternates per round (neither always has the other's calls before it); without, unpinned only.
 */
function p1Rounds(systems, rounds, tasks, sequential, mode, latencies) {
  const child = fileURLToPath(new URL("../fixtures/p1-system.js", import.meta.url));
  const runs = new Map(systems.map((s) => [s, []]));
  for (let r = 0; r < rounds; r++) {
    const order = !latencies ? ["unpinned"] : r % 2 ? ["unpinned", "one-core", "split"] : ["unpinned", "split", "one-core"];
    for (const s of systems) {
      const args = [child, s, String(tasks), String(sequential), mode, order.join(",")];
      const out = execFileSync(process.execPath, args, { encoding: "utf8", timeout: 60_000 });
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

/** "median (min–max)" of a system's p50 in `placement` over its rounds. */
function p50Spread(rows, placement) {
  return spread(
    rows.map((r) => r.latency[placement]),
    "p50",
    (x) => x.toFixed(0),
  );
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
  const rawThreadMs = await rawSharedHandOffMs(sharedArray);
  // What a hand-off that copied the bytes would cost at the least: one memcpy of them in this thread.
  const copy = new Float64Array(sharedArray.length).fill(0); // its pages touched first: the copy alone is timed
  t = performance.now();
  copy.set(sharedArray);
  const memcpyMs = performance.now() - t;
  report(
    "P5",
    `${mib} MiB SharedArrayBuffer Float64Array put → task in a worker thread (no copy)`,
    threadMs.toFixed(1),
    "ms",
    `raw worker thread handed the same SharedArrayBuffer by postMessage, running the same task ${rawThreadMs.toFixed(1)} ms; ` +
      `one memcpy of the bytes ${memcpyMs.toFixed(0)} ms`,
    `${(threadMs / rawThreadMs).toFixed(1)}× the raw hand-off`,
    "zero-copy (under one memcpy of the bytes)",
    threadMs < memcpyMs,
  );
  report(
    "P5",
    `${mib} MiB Float64Array put → task in another process (by its socket, as the floor)`,
    (mib / (frayMs / 1000)).toFixed(0),
    "MiB/s",
    `raw Unix-socket copy ${(mib / (rawMs / 1000)).toFixed(0)} MiB/s`,
    `${(rawMs / frayMs).toFixed(2)}× raw`,
    "≥ 0.5× raw",
    rawMs / frayMs >= 0.5,
  );
}

/** Ms for a raw worker thread (no fray), started and warmed first, to be handed `array` (on a SharedArrayBuffer) by postMessage and answer checksum(array). */
async function rawSharedHandOffMs(array) {
  const fixture = new URL("../fixtures/tasks.js", import.meta.url).href;
  const code = `import { parentPort } from "node:worker_threads"; import { checksum } from ${JSON.stringify(fixture)};
    parentPort.on("message", (a) => parentPort.postMessage(checksum(a)));`;
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`));
  try {
    worker.postMessage(new Float64Array(1));
    await once(worker, "message");
    const t = performance.now();
    worker.postMessage(array);
    const [[length]] = await once(worker, "message");
    const ms = performance.now() - t;
    if (length !== array.length) throw new Error("the raw worker saw a different array");
    return ms;
  } finally {
    await worker.terminate();
  }
}
