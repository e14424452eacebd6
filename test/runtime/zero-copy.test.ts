// Large typed arrays between threads: an array on a SharedArrayBuffer reaches a
// task in a worker thread without a copy (the task sees, and writes, the same
// memory); any other array arrives as an independent copy.
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { markFirst } from "../fixtures/tasks.ts";

let ctx: JobContext;
before(() => {
  ctx = createJobContext("threads", { maxWorkers: 1 });
});
after(() => ctx.shutdown());

it("a SharedArrayBuffer-backed array is shared with a task in a thread, not copied", async () => {
  const shared = new Float64Array(new SharedArrayBuffer(8 * 1_000_000));
  assert.equal(await ctx.get(ctx.run(markFirst, ctx.put(shared), 42)), 1_000_000);
  assert.equal(shared[0], 42);
});

it("an ordinary array arrives as a copy", async () => {
  const plain = new Float64Array(1_000_000);
  assert.equal(await ctx.get(ctx.run(markFirst, plain, 42)), 1_000_000);
  assert.equal(plain[0], 0);
});
