// Locality (docs/design/object-store.md, slice 4): a task whose argument is a large value held by a worker runs on
// that worker when it is free, so the value is read in place instead of copied from another process.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createJobContext } from "../../src/job.ts";
import { bigFrom, checkFill, pidOf, putBigFrom } from "./object-spill-tasks.ts";

const N = 131_072; // 1 MiB of doubles: held by the worker that made it

describe("locality", () => {
  it("a task given a held value runs on the worker that holds it when that worker is free", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 2 });
    // Submitted together, the two take both workers.
    const refs = [ctx.run(bigFrom, N, 1), ctx.run(bigFrom, N, 2)];
    const holders = (await ctx.get(refs)).map((big) => big.pid);
    assert.notEqual(holders[0], holders[1], "each worker holds one value");
    // One reader at a time: both workers are free for each, and each goes where its argument is.
    for (const [i, ref] of refs.entries()) {
      for (let round = 0; round < 3; round++) {
        const check = await ctx.get(ctx.run(checkFill, ref, i + 1));
        assert.ok(check.exact);
        assert.equal(check.pid, holders[i], `a reader of value ${i} ran on its holder`);
      }
    }
  });

  it("a task given a large value a task put runs on the worker that put it (its owner holds it) when that worker is free", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 2 });
    const puts = await ctx.get([ctx.run(putBigFrom, N, 1), ctx.run(putBigFrom, N, 2)]);
    assert.notEqual(puts[0].pid, puts[1].pid, "each worker put one value");
    for (const [i, put] of puts.entries()) {
      for (let round = 0; round < 3; round++) {
        const check = await ctx.get(ctx.run(checkFill, put.ref, i + 1));
        assert.ok(check.exact);
        assert.equal(check.pid, put.pid, `a reader of put ${i} ran on the worker that put it`);
      }
    }
    // Beside a smaller held result, the larger put decides.
    const small = ctx.run(bigFrom, N / 2, 3);
    const smallHolder = (await ctx.get(small)).pid;
    const large = puts.find((p) => p.pid !== smallHolder)!;
    assert.equal(await ctx.get(ctx.run(pidOf, small, large.ref)), large.pid);
  });

  it("a task given several held values runs where the largest of them is", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 2 });
    const [small, large] = [ctx.run(bigFrom, N, 1), ctx.run(bigFrom, 2 * N, 2)];
    const holders = (await ctx.get([small, large])).map((big) => big.pid);
    assert.notEqual(holders[0], holders[1]);
    assert.equal(await ctx.get(ctx.run(pidOf, small, large)), holders[1]);
    assert.equal(await ctx.get(ctx.run(pidOf, large, small)), holders[1]);
  });
});
