// A worker's `put` is owned by that worker (docs/design/object-store.md, "Who owns what"): its put owner keeps the
// value and its borrowers, a get in the same task sends the head nothing, a reader elsewhere asks the owner; refs in
// flight are pinned so a putter that drops its ref at once loses nothing; a dead owner's refs reject with
// ObjectLostError naming the put and the worker.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ObjectLostError, type ObjectRef } from "../../src/job.ts";
import { refCountsOf } from "../../src/job/objects/ref-counts.ts";
import { collectUntil, headCalls, heldBackends, N, ownerBackends } from "./held-backends.ts";
import { check, checkByGet, collect, countsHere, ownedHere, putAndDrop, putAndGet, putHere, waitMixed } from "./put-owner-tasks.ts";

for (const [kind, make] of ownerBackends) {
  describe(kind, () => {
    for (const [size, n] of [
      ["small", 16],
      ["1 MiB", N],
    ] as const) {
      it(`a ${size} put waited for and read in the same task sends the head nothing and reads exactly`, async () => {
        await using ctx = make(1);
        await ctx.get(ctx.run(collect)); // the worker is up
        let result: { id: string; exact: boolean } | undefined;
        const calls = await headCalls(["remoteGet", "remoteBorrow", "remoteReturn", "remoteWait"], async () => {
          result = await ctx.get(ctx.run(putAndGet, n, 7));
        });
        assert.equal(result!.exact, true);
        assert.equal(calls, 0, "the head was not asked for the value, nor told of a borrow");
        assert.deepEqual(refCountsOf(result!.id), { own: 0, borrowed: 0 }, "the head never counted the value");
      });

      it(`a ${size} put returned to the driver and passed to a task on another worker reads exactly`, async () => {
        await using ctx = make(2);
        const { ref, pid } = await ctx.get(ctx.run(putHere, n, 3));
        assert.deepEqual(refCountsOf(ref.id), { own: 0, borrowed: 0 }, "the head does not own it");
        const got = await ctx.get(ref);
        assert.equal(got.length, n);
        assert.ok(got.every((x) => x === 3));
        // Two readers at once take both workers: one reads where the value is, the other from its owner.
        const readers = await ctx.get([ctx.run(check, ref, n, 3), ctx.run(checkByGet, { ref }, n, 3)]);
        assert.deepEqual(
          readers.map((r) => r.exact),
          [true, true],
        );
        assert.notEqual(readers[0].worker, readers[1].worker, "the readers ran on both workers");
        if (kind !== "threads")
          assert.ok(
            readers.some((r) => r.pid !== pid),
            "one read from another process",
          );
      });
    }

    it("a task's wait for its put and a nested task finds the put ready first, and both once the task ends", async () => {
      await using ctx = make(1);
      assert.deepEqual(await ctx.get(ctx.run(waitMixed)), { first: "put", both: 2 });
    });

    it("the owner counts the driver as a borrower, and frees the value once every process dropped its refs", async () => {
      await using ctx = make(1);
      const lend = async () => {
        const { ref } = await ctx.get(ctx.run(putHere, N, 4));
        assert.ok(await collectUntil(ctx, collect, async () => (await ctx.get(ctx.run(countsHere, ref.id))).own === 0), "the task's own ref dropped");
        assert.deepEqual(await ctx.get(ctx.run(countsHere, ref.id)), { own: 0, borrowed: 1 }, "the driver borrows it");
        assert.equal(await ctx.get(ctx.run(ownedHere)), 1);
        assert.equal((await ctx.get(ref))[N - 1], 4);
      };
      await lend();
      assert.ok(await collectUntil(ctx, collect, async () => (await ctx.get(ctx.run(ownedHere))) === 0), "freed once the driver dropped it too");
    });

    it("a ref whose putter dropped it as it returned is still read by the driver (it was pinned in flight)", async () => {
      await using ctx = make(1);
      for (let round = 0; round < 5; round++) {
        const { ref } = await ctx.get(ctx.run(putAndDrop, N, round));
        await ctx.get(ctx.run(collect)); // the worker collected its garbage before the driver reads
        const got: Float64Array = await ctx.get(ref);
        assert.equal(got[N - 1], round);
        assert.deepEqual(refCountsOf(ref.id), { own: 0, borrowed: 0 }, "owned by the worker, not the head");
      }
    });
  });
}

for (const [kind, make] of heldBackends) {
  it(`a put whose worker was killed rejects the driver's get with ObjectLostError naming the put and the worker (${kind})`, async () => {
    await using ctx = make(1);
    const { ref, pid }: { ref: ObjectRef<Float64Array>; pid: number } = await ctx.get(ctx.run(putHere, 16, 1));
    process.kill(pid, "SIGKILL");
    await assert.rejects(ctx.get(ref), (err: Error) => {
      assert.ok(err instanceof ObjectLostError, `${err.name}: ${err.message}`);
      assert.match(err.message, new RegExp(`ObjectRef\\(${ref.id}\\)`));
      assert.match(err.message, /made in worker 0 .*by put/);
      assert.match(err.message, /its owner, that process, .*gone/);
      return true;
    });
  });
}
