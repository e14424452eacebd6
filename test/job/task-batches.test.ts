// Tasks placed in one tick go to their worker in one batch and their results
// come back together; each task still succeeds or fails on its own.
import assert from "node:assert/strict";
import { after as afterAll, before, describe, it } from "node:test";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { SupervisionError, thisHost } from "../../src/mesh.ts";
import { add, after, sum, ValueError, valueOrFunction, valueOrThrow } from "../fixtures/tasks.ts";
import { track } from "../helpers.ts";

for (const kind of ["threads", "processes"] as const) {
  describe(`tasks in batches on ${kind}`, () => {
    let ctx: JobContext;
    before(() => (ctx = createJobContext(kind, { maxWorkers: 2 })));
    afterAll(() => ctx.shutdown());

    it("2,000 tiny tasks submitted at once each fill their own ref", async () => {
      const refs = Array.from({ length: 2000 }, (_, i) => ctx.run(add, i, 1));
      assert.deepEqual(
        await ctx.get(refs),
        Array.from({ length: 2000 }, (_, i) => i + 1),
      );
    });

    it("a value that cannot be sent back fails its own task with a SerializationError; its batch-mates succeed", async () => {
      const refs = Array.from({ length: 50 }, (_, i) => ctx.run(valueOrFunction, i, 7));
      const settled = await Promise.allSettled(refs.map((r) => ctx.get(r)));
      settled.forEach((s, i) => {
        if (i !== 7) return assert.deepEqual(s, { status: "fulfilled", value: i });
        assert.equal(s.status, "rejected");
        const reason = (s as PromiseRejectedResult).reason as Error;
        assert.equal(reason.name, "SerializationError");
        assert.match(reason.message, /function/);
      });
    });

    it("a task that throws fails alone with its own error; its batch-mates succeed", async () => {
      const refs = Array.from({ length: 50 }, (_, i) => ctx.run(valueOrThrow, i, 3));
      const settled = await Promise.allSettled(refs.map((r) => ctx.get(r)));
      settled.forEach((s, i) => {
        if (i !== 3) return assert.deepEqual(s, { status: "fulfilled", value: i });
        const reason = (s as PromiseRejectedResult).reason as Error;
        assert.ok(reason instanceof ValueError, `${reason}`);
        assert.equal(reason.message, "bad 3");
      });
    });

    it("tasks with refs, arrays and plain numbers among their arguments, submitted together, all get their values", async () => {
      const put = ctx.put(10);
      const refs = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? ctx.run(add, put, i) : i % 3 === 1 ? ctx.run(sum, [i, i, i]) : ctx.run(add, i, i)));
      assert.deepEqual(
        await ctx.get(refs),
        Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? 10 + i : i % 3 === 1 ? 3 * i : 2 * i)),
      );
    });
  });
}

it(
  "a batched task whose worker's process is stopped (no failure, so no supervision event) fails with SupervisionError instead of " + "staying pending",
  async () => {
    await using procs = track(thisHost().spawnProcs({ workers: 1 }));
    await using ctx = createJobContext("mesh", { procs });
    assert.equal(await ctx.get(ctx.run(after, 1, 0)), 0); // its function is located now: the next task goes in a batch
    const slow = ctx.run(after, 60_000, 1);
    const [, pending] = await ctx.wait([slow], { timeout: 0.05 });
    assert.equal(pending.length, 1);
    await procs.stop();
    await assert.rejects(ctx.get(slow), (e: Error) => e instanceof SupervisionError && /task after on worker 0 cannot complete/.test(e.message));
  },
);
