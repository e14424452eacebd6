// Run by held-in-shm.test.ts with a 1 MiB tmpfs on /dev/shm (its own mount namespace): a 2 MiB value held by a worker
// cannot go to /dev/shm and stays in the worker's heap; both workers read it exactly. Prints what it found as JSON.
import { createJobContext } from "../../src/job.ts";
import type { MetricFamily } from "../../src/dashboard.ts";
import { collectMetrics } from "../../src/runtime/face/metrics.ts";
import { patterned, readPatterned } from "./held-in-shm-tasks.ts";

const SIZE = 2 * 2 ** 20;
const ctx = createJobContext("processes", { maxWorkers: 2 });
try {
  const ref = ctx.run(patterned, SIZE, 5);
  await ctx.wait([ref]);
  const reads = await ctx.get([ctx.run(readPatterned, { ref }, SIZE, 5), ctx.run(readPatterned, { ref }, SIZE, 5)]);
  const json = (await collectMetrics()).json as unknown as MetricFamily[];
  const held = (tier: string) => json.find((m) => m.name === "fray_object_held_bytes")!.values.reduce((n, v) => n + (v.labels.tier === tier ? v.value : 0), 0);
  console.log(JSON.stringify({ wrong: reads.map((r) => r.wrong), memory: held("memory") >= SIZE, shm: held("shm") }));
} finally {
  await ctx.shutdown();
}
