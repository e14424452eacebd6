// Large typed arrays between threads: an array on a SharedArrayBuffer reaches a
// task in a worker thread without a copy (the task sees, and writes, the same
// memory); any other array arrives as an independent copy. So does a task's result read through its ref by a
// task on another thread and by the driver (the value kept by the head of a threads job).
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { filledArray, markFirst } from "../fixtures/tasks.ts";

let ctx: JobContext;
before(() => {
  ctx = createJobContext("threads", { maxWorkers: 2 });
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

it("a task's result on a SharedArrayBuffer is shared through its ref: another task's write is the driver's", async () => {
  const made = ctx.run(filledArray, 1_000_000, 1, true);
  assert.equal(await ctx.get(ctx.run(markFirst, made, 42)), 1_000_000);
  const seen = await ctx.get(made);
  assert.ok(seen.buffer instanceof SharedArrayBuffer);
  assert.equal(seen[0], 42);
});

it("a task's ordinary result arrives as a copy: another task's write stays its own", async () => {
  const made = ctx.run(filledArray, 1_000_000, 1, false);
  assert.equal(await ctx.get(ctx.run(markFirst, made, 42)), 1_000_000);
  const seen = await ctx.get(made);
  assert.ok(!(seen.buffer instanceof SharedArrayBuffer));
  assert.equal(seen[0], 1);
});
