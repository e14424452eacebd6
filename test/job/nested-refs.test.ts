// Refs a task returns that it made itself — the refs of tasks it submitted, of values it put — are read by the
// driver like any other: the driver waits for their values, even when the task's result reached the head before
// the submits it made.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { thisHost, type ProcMesh } from "../../src/mesh.ts";
import { track } from "../helpers.ts";
import { refsFrom } from "./nested-refs-tasks.ts";

const backends: Array<[string, () => { ctx: JobContext; procs?: ProcMesh }]> = [
  ["threads", () => ({ ctx: createJobContext("threads", { maxWorkers: 2 }) })],
  ["processes", () => ({ ctx: createJobContext("processes", { maxWorkers: 2 }) })],
  [
    "mesh",
    () => {
      const procs = track(thisHost().spawnProcs({ workers: 2 }));
      return { ctx: createJobContext("mesh", { procs }), procs };
    },
  ],
];

const squares = Array.from({ length: 200 }, (_, i) => i * i);

for (const [kind, make] of backends) {
  describe(`refs returned by a task, on ${kind}`, () => {
    // Fresh workers each time: a worker's first submit of a function looks its module up, which is when the task's
    // result used to overtake it.
    for (const how of ["tasks", "puts"] as const) {
      it(`get of 200 refs to ${how} made inside a task gives their values, with fresh workers each of 3 times`, async () => {
        for (let round = 0; round < 3; round++) {
          const { ctx, procs } = make();
          try {
            const refs = await ctx.get(ctx.run(refsFrom, how, 200));
            assert.deepEqual(await ctx.get(refs), squares);
          } finally {
            await ctx.shutdown();
            await procs?.stop();
          }
        }
      });
    }
  });
}
