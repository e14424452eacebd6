// Run by held-in-shm.test.ts with a limit of 256 open files: one worker holds 80 values of 1 MiB; a quarter of its
// file descriptors (64) hold /dev/shm files, the other 16 values stay in its heap, and every value reads exactly.
// Prints what it found as JSON.
import { createJobContext } from "../../src/job.ts";
import type { MetricFamily } from "../../src/dashboard.ts";
import { collectMetrics } from "../../src/runtime/face/metrics.ts";
import { firstWrong, patterned, probe } from "./held-in-shm-tasks.ts";

const SIZE = 2 ** 20;
const ctx = createJobContext("processes", { maxWorkers: 1 });
try {
  const refs = Array.from({ length: 80 }, (_, i) => ctx.run(patterned, SIZE, i));
  const values = await ctx.get(refs);
  const { shmFiles } = await ctx.get(ctx.run(probe));
  const json = (await collectMetrics()).json as unknown as MetricFamily[];
  const memory = json.find((m) => m.name === "fray_object_held_bytes")!.values.reduce((n, v) => n + (v.labels.tier === "memory" ? v.value : 0), 0);
  const inMemory = Math.floor(memory / SIZE); // each value's encoding is a little over SIZE
  console.log(JSON.stringify({ wrong: values.map((v, i) => firstWrong(v, SIZE, i)), shmFiles, inMemory }));
} finally {
  await ctx.shutdown();
}
