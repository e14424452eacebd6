// The job head's control surface: the endpoints workers use to message the
// head are the job's own, not part of anything user code can reach.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createJobContext } from "../src/job.ts";
import { ContextProbe, contextSurface } from "./fixtures/head-probes.ts";

/** The JobContext API: all a task or actor should find on the context it sees. */
const JOB_CONTEXT_API = ["createActor", "createTask", "get", "kind", "put", "run", "shutdown", "wait"];

for (const kind of ["threads", "processes"] as const) {
  describe(`the job head's control surface on ${kind}`, () => {
    it("a task finds only the JobContext API on its context, and nothing there leads to the head's mesh", async () => {
      const ctx = createJobContext(kind, { maxWorkers: 1 });
      try {
        const seen = await ctx.get(ctx.run(contextSurface));
        assert.deepEqual(seen.headPaths, []);
        assert.deepEqual(seen.members, JOB_CONTEXT_API);
      } finally {
        await ctx.shutdown();
      }
    });

    it("an actor finds only the JobContext API on its context, and nothing there leads to the head's mesh", async () => {
      const ctx = createJobContext(kind, { maxWorkers: 1 });
      try {
        const probe = await ctx.createActor(ContextProbe);
        const seen = await ctx.get(probe.surface.remote());
        assert.deepEqual(seen.headPaths, []);
        assert.deepEqual(seen.members, JOB_CONTEXT_API);
      } finally {
        await ctx.shutdown();
      }
    });
  });
}
