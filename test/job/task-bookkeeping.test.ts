// The head's task tree and cancel bookkeeping stay bounded in a long-lived driver: a nested task submitted after its
// parent ended leaves no entry in the tree, and cancelled actor calls leave no id behind once they settled.
// The counts come from an internal probe of the scheduler (not part of the public API).
import assert from "node:assert/strict";
import { after as afterAll, before, describe, it } from "node:test";
import { createJobContext, TaskCancelledError, type ActorHandle, type JobContext } from "../../src/job.ts";
import { bookkeepingProbe } from "../../src/job/tasks/bookkeeping-probe.ts";
import { leaveChild } from "../fixtures/bookkeeping-tasks.ts";
import { Board, record, waitForKey } from "../fixtures/cancel-tasks.ts";

const N = 200;

for (const kind of ["processes", "threads"] as const) {
  describe(`task bookkeeping on ${kind}`, () => {
    let ctx: JobContext;
    let board: ActorHandle<Board>;
    before(async () => {
      ctx = createJobContext(kind, { maxWorkers: 2 });
      board = await ctx.createActor(Board, [], { maxConcurrency: N + 8 });
    });
    afterAll(() => ctx.shutdown());

    it("nested tasks submitted by parents that returned without awaiting them leave no entry in the task tree", async () => {
      const keys = Array.from({ length: N }, (_, i) => `${kind}.child${i}`);
      const parents = keys.map((key) => ctx.run(leaveChild, board, key));
      await ctx.get(parents);
      await ctx.get(keys.map((key) => board.waitFor.remote(key))); // every child ran
      await ctx.get(ctx.run(waitForKey, board, keys[0])); // and a task's round trip after their results
      assert.equal(bookkeepingProbe().tree, 0);

      // A recursive cancel of a finished parent reaches nothing that runs later.
      const later = ctx.run(record, board, `${kind}.later`, null);
      for (const parent of parents) await ctx.cancel(parent); // recursive by default
      assert.equal(await ctx.get(later), `${kind}.later`);
      assert.equal(bookkeepingProbe().tree, 0);
    });

    it("actor calls cancelled before and after they ran leave no cancel bookkeeping once settled", async () => {
      const key = `${kind}.go`;
      const waiting = Array.from({ length: N / 2 }, () => board.waitFor.remote(key));
      for (const call of waiting) await ctx.cancel(call);
      for (const call of waiting) await assert.rejects(ctx.get(call), (e: unknown) => e instanceof TaskCancelledError);
      const done = Array.from({ length: N / 2 }, (_, i) => board.mark.remote(`${kind}.done${i}`));
      await ctx.get(done);
      for (const call of done) await ctx.cancel(call);
      await ctx.get(ctx.run(waitForKey, board, `${kind}.done0`)); // a task's round trip after the cancels
      await ctx.get(board.mark.remote(key)); // the waiting calls settle at the actor
      assert.equal(bookkeepingProbe().cancelledEarly, 0);
    });
  });
}
