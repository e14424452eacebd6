// The job head's control surface: the endpoints workers use to message the
// head are the job's own, not part of anything user code can reach.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createJobContext } from "../../src/job.ts";
import { ContextProbe, contextSurface, createNamed } from "../fixtures/head-probes.ts";

/** The JobContext API: all a task or actor should find on the context it sees. */
const JOB_CONTEXT_API = [
  "asCompleted",
  "cancel",
  "createActor",
  "createActorGroup",
  "createStreamingTask",
  "createTask",
  "get",
  "killActor",
  "kind",
  "put",
  "run",
  "runStreaming",
  "shutdown",
  "signal",
  "wait",
];

for (const kind of ["threads", "processes"] as const) {
  describe(`the job head's control surface on ${kind}`, () => {
    it("a task finds only the JobContext API on its context, and nothing there leads to the head's mesh", async () => {
      await using ctx = createJobContext(kind, { maxWorkers: 1 });
      const seen = await ctx.get(ctx.run(contextSurface));
      assert.deepEqual(seen.headPaths, []);
      assert.deepEqual(seen.members, JOB_CONTEXT_API);
    });

    it("an actor finds only the JobContext API on its context, and nothing there leads to the head's mesh", async () => {
      await using ctx = createJobContext(kind, { maxWorkers: 1 });
      const probe = await ctx.createActor(ContextProbe);
      const seen = await ctx.get(probe.surface.remote());
      assert.deepEqual(seen.headPaths, []);
      assert.deepEqual(seen.members, JOB_CONTEXT_API);
    });
  });
}

describe("names of the job's own meshes", () => {
  for (const kind of ["sync", "threads"] as const) {
    it(`createActor refuses names starting with 'fray-', from the driver and from a task (${kind})`, async () => {
      await using ctx = createJobContext(kind, { maxWorkers: 1 });
      const reserved = /actor name 'fray-(executors|job-head)' is reserved.*choose another name/;
      await assert.rejects(ctx.createActor(ContextProbe, [], { name: "fray-executors" }), reserved);
      await assert.rejects(ctx.createActor(ContextProbe, [], { name: "fray-job-head", getIfExists: true }), reserved);
      await assert.rejects(ctx.get(ctx.run(createNamed, "fray-job-head", true)), reserved);
      assert.equal(await ctx.get(ctx.run(createNamed, "my-fray-actor", false)), "created");
    });
  }
});

describe("a job context declared with await using", () => {
  for (const kind of ["sync", "processes"] as const) {
    it(`is shut down when its block ends (${kind})`, async () => {
      let outside: ReturnType<typeof createJobContext>;
      {
        await using ctx = createJobContext(kind, { maxWorkers: 1 });
        outside = ctx;
        assert.deepEqual((await ctx.get(ctx.run(contextSurface))).headPaths, []);
      }
      if (kind === "sync") return; // sync holds nothing: shutting it down releases nothing and refuses nothing
      await assert.rejects(async () => outside.get(outside.run(contextSurface)), /job context was shut down; create another with createJobContext\(\)/);
    });
  }
});
