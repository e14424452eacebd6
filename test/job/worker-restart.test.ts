// A worker that dies by itself — a crash, a kill, process.exit in user code — is started again, so a job keeps its
// workers: a long-lived driver's pool does not shrink with each crash, down to "every worker of this job has died".
import assert from "node:assert/strict";
import { after as afterAll, before, describe, it } from "node:test";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { SupervisionError, thisHost, type ProcMesh } from "../../src/mesh.ts";
import { exitWorker } from "../fixtures/stream-option-tasks.ts";
import { square } from "../fixtures/tasks.ts";
import { track } from "../helpers.ts";

const backends: Array<[string, () => { ctx: JobContext; procs?: ProcMesh }]> = [
  ["threads", () => ({ ctx: createJobContext("threads", { maxWorkers: 1 }) })],
  ["processes", () => ({ ctx: createJobContext("processes", { maxWorkers: 1 }) })],
  [
    "mesh",
    () => {
      const procs = track(thisHost().spawnProcs({ workers: 1 }));
      return { ctx: createJobContext("mesh", { procs }), procs };
    },
  ],
];

for (const [kind, make] of backends) {
  describe(`a worker that died is started again on ${kind}`, () => {
    let ctx: JobContext;
    let procs: ProcMesh | undefined;
    before(() => ({ ctx, procs } = make()));
    afterAll(async () => {
      await ctx.shutdown();
      await procs?.stop();
    });

    it("the job's only worker exits three times in a row, and each later task still runs", async () => {
      for (let round = 0; round < 3; round++) {
        await assert.rejects(ctx.get(ctx.run(exitWorker)), SupervisionError);
        assert.equal(await ctx.get(ctx.run(square, round)), round * round);
      }
    });
  });
}
