// docs/design/object-store.md, slice 3: a large value a task puts stays in that task's worker, as a large result
// does; and a value is freed once no process holds a ref to it — the driver's own refs counted by the head, every
// other process that decodes one (a task given it, say) registered as a borrower until it drops it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createJobContext, type ObjectRef } from "../../src/job.ts";
import { objectStats } from "../../src/job/base/metrics.ts";
import { refCountsOf } from "../../src/job/objects/ref-counts.ts";
import { bigResult, heldHere, sumByGet, sumOf } from "./held-results-tasks.ts";
import { collect, dropKept, keep, putBig, putSmall, Putter, RefKeeper, sumKept, Summer } from "./object-borrowers-tasks.ts";
import { HeldValue } from "../../src/job/objects/held-value.ts";
import { collectUntil, heldBackends, N } from "./held-backends.ts";

for (const [kind, make] of heldBackends) {
  describe(kind, () => {
    it("a large value put by a task stays in its worker: tasks and the driver read it from there", async () => {
      await using ctx = make(2);
      const before = objectStats.bytes;
      const { ref } = await ctx.get(ctx.run(putBig, N, 3));
      assert.equal(objectStats.bytes - before, 0, "the driver's object store holds none of the value's bytes");
      const readers = await ctx.get([ctx.run(sumOf, ref), ctx.run(sumByGet, { ref })]);
      assert.deepEqual(
        readers.map((r) => r.sum),
        [3 * N, 3 * N],
      );
      const big = await ctx.get(ref);
      assert.equal(big.length, N);
      assert.equal(big[N - 1], 3);
      assert.equal(objectStats.bytes - before, 0, "nor after its readers and the driver's get");
    });

    it("a large value put by an actor on a worker stays in the actor's process", async () => {
      await using ctx = make(1);
      const putter = await ctx.createActor(Putter);
      const before = objectStats.bytes;
      const { ref } = await ctx.get(putter.put.remote(N, 8));
      assert.equal((await ctx.get(ctx.run(sumOf, ref))).sum, 8 * N);
      assert.equal((await ctx.get(ref))[N - 1], 8);
      assert.equal(objectStats.bytes - before, 0, "the driver's object store holds none of the value's bytes");
    });

    it("a large result of an actor call stays in the actor's process: a task and the driver read it from there", async () => {
      await using ctx = make(1);
      const putter = await ctx.createActor(Putter);
      const before = objectStats.bytes;
      const ref = putter.big.remote(N, 9);
      assert.equal((await ctx.get(ctx.run(sumOf, ref))).sum, 9 * N);
      assert.equal((await ctx.get(ref))[N - 1], 9);
      assert.equal(objectStats.bytes - before, 0, "the driver's object store holds none of the value's bytes");
      assert.equal(await ctx.get(ctx.run(heldHere)), 1, "the actor's worker holds it");
      assert.equal((await ctx.get(putter.big.remote(10, 1))).length, 10, "a small result travels to the driver as before");
    });

    it("a small value put by a task is kept by its worker as it is, not held as bytes", async () => {
      await using ctx = make(1);
      const { ref } = await ctx.get(ctx.run(putSmall, "small"));
      assert.equal(await ctx.get(ref), "small");
      assert.equal(await ctx.get(ctx.run(heldHere)), 0, "the worker holds no bytes for it");
    });

    it("a value put by a task is freed once the task and the driver dropped their refs", async () => {
      await using ctx = make(1);
      const read = async () => {
        const { ref } = await ctx.get(ctx.run(putBig, N, 4));
        assert.equal((await ctx.get(ref))[0], 4);
        assert.equal(await ctx.get(ctx.run(heldHere)), 1, "the worker holds the value while a ref to it lives");
      };
      await read();
      assert.ok(await collectUntil(ctx, collect, async () => (await ctx.get(ctx.run(heldHere))) === 0), "the value was freed");
    });

    it("a held value stays while a task that borrowed its ref keeps it, and is freed once it and the driver dropped it", async () => {
      await using ctx = make(1);
      const lend = async () => {
        const ref: ObjectRef<Float64Array> = ctx.run(bigResult, N, 2);
        await ctx.get(ctx.run(keep, { ref })); // the worker keeps the ref after the task returned
        return ref.id;
      };
      const id = await lend();
      // The driver's refs are gone once the head counts none of its own; the worker's borrow keeps the value.
      assert.ok(await collectUntil(ctx, collect, () => refCountsOf(id).own === 0), "the driver's refs were dropped");
      assert.equal(refCountsOf(id).borrowed, 1, "the worker is counted as a borrower");
      assert.equal(await ctx.get(ctx.run(heldHere)), 1, "not freed while a borrower holds a ref");
      assert.equal(await ctx.get(ctx.run(sumKept)), 2 * N, "the borrower still reads it");
      await ctx.get(ctx.run(dropKept));
      assert.ok(await collectUntil(ctx, collect, async () => (await ctx.get(ctx.run(heldHere))) === 0), "freed once the borrower dropped it too");
      assert.deepEqual(refCountsOf(id), { own: 0, borrowed: 0 });
    });

    it("an actor call given the ref of a held value reads it from its holder, not through the driver", async () => {
      await using ctx = make(2);
      const summer = await ctx.createActor(Summer);
      const ref = ctx.run(bigResult, N, 3);
      await ctx.wait([ref]);
      const read = HeldValue.prototype.read;
      let readHere = 0;
      HeldValue.prototype.read = function (this: HeldValue) {
        readHere++;
        return read.call(this);
      };
      try {
        assert.equal(await ctx.get(summer.sum.remote(ref, 2)), 6 * N);
      } finally {
        HeldValue.prototype.read = read;
      }
      assert.equal(readHere, 0, "the driver read none of it");
    });

    it("a held value an actor keeps a ref to stays until the actor drops it", async () => {
      await using ctx = make(1);
      const keeper = await ctx.createActor(RefKeeper);
      const lend = async () => {
        const ref: ObjectRef<Float64Array> = ctx.run(bigResult, N, 7);
        await ctx.get(keeper.keep.remote({ ref }));
        return ref.id;
      };
      const id = await lend();
      assert.ok(await collectUntil(ctx, collect, () => refCountsOf(id).own === 0), "the driver's refs were dropped");
      assert.equal(await ctx.get(keeper.first.remote()), 7, "the actor still reads it");
      await ctx.get(keeper.drop.remote());
      assert.ok(await collectUntil(ctx, collect, () => refCountsOf(id).borrowed === 0), "the actor's borrow was given back");
      assert.ok(await collectUntil(ctx, collect, async () => (await ctx.get(ctx.run(heldHere))) === 0), "and the value freed in its worker");
    });
  });
}

describe("threads", () => {
  it("a value a task borrowed is kept while it keeps the ref, and released once it and the driver dropped it", async () => {
    await using ctx = createJobContext("threads", { maxWorkers: 1 });
    const lend = async () => {
      const ref: ObjectRef<Float64Array> = ctx.run(bigResult, 1000, 5);
      await ctx.get(ctx.run(keep, { ref }));
      return ref.id;
    };
    const id = await lend();
    assert.ok(await collectUntil(ctx, collect, () => refCountsOf(id).own === 0), "the driver's refs were dropped");
    assert.equal(refCountsOf(id).borrowed, 1, "the worker thread is counted as a borrower");
    assert.equal(await ctx.get(ctx.run(sumKept)), 5 * 1000, "the borrower still reads it");
    await ctx.get(ctx.run(dropKept));
    assert.ok(await collectUntil(ctx, collect, () => refCountsOf(id).borrowed === 0), "the borrow was given back");
    assert.deepEqual(refCountsOf(id), { own: 0, borrowed: 0 });
  });
});
