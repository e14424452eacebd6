// A worker that dies by itself — a crash, a kill, process.exit in user code — is started again, so a job keeps its
// workers: a long-lived driver's pool does not shrink with each crash, down to "every worker of this job has died".
import assert from "node:assert/strict";
import { after as afterAll, before, describe, it } from "node:test";
import type { JobContext } from "../../src/job.ts";
import { SupervisionError, type ProcMesh } from "../../src/mesh.ts";
import { exitWorker } from "../fixtures/stream-option-tasks.ts";
import { square } from "../fixtures/tasks.ts";
import { jobBackends } from "../helpers.ts";

for (const [kind, make] of jobBackends(["threads", "processes", "mesh"], 1)) {
  describe(`a worker that died is started again on ${kind}`, () => {
    let ctx: JobContext;
    let procs: ProcMesh | undefined;
    before(async () => ({ ctx, procs } = await make()));
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
