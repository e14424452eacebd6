// On `threads`, batches of tasks with plain arguments go to the Executors by a
// lane of their own (src/job/routes/thread-lane/thread-lane.ts) and plain values come back
// by it; everything else goes by actor calls as before. Each task still gets
// its own value or error, and a worker thread that dies takes its lane with it.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after as afterAll, before, describe, it } from "node:test";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { SupervisionError } from "../../src/mesh.ts";
import { endpointStats } from "../../src/runtime/base/counters.ts";
import { exitOnce, shape, SHAPES, whereAmI, wrap } from "../fixtures/lane-tasks.ts";
import { add } from "../fixtures/tasks.ts";

describe("task lanes on threads", () => {
  let ctx: JobContext;
  let dir: string;
  before(() => {
    ctx = createJobContext("threads", { maxWorkers: 3 });
    dir = mkdtempSync(join(tmpdir(), "fray-lanes-"));
  });
  afterAll(async () => {
    await ctx.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it("tiny tasks, one at a time or many at once, go by the lane: no Executor.runBatch message is sent for them", async () => {
    assert.equal(await ctx.get(ctx.run(add, 0, 1)), 1); // the first goes by a call of its own while its function is located
    const runBatch = endpointStats("Executor", "runBatch");
    const sentBefore = runBatch.sent;
    for (let i = 0; i < 200; i++) assert.equal(await ctx.get(ctx.run(add, i, 1)), i + 1);
    const many = await ctx.get(Array.from({ length: 2000 }, (_, i) => ctx.run(add, i, 2)));
    assert.deepEqual(
      many,
      Array.from({ length: 2000 }, (_, i) => i + 2),
    );
    assert.equal(runBatch.sent, sentBefore);
  });

  it("a value or an argument arrives the same by the lane as by a call of its own (-0 and lone surrogates as the codec carries them)", async () => {
    const names = Object.keys(SHAPES);
    await ctx.get([ctx.run(shape, "number"), ctx.run(wrap, 0)]); // located: the next go in batches, by the lane
    // An argument that is a ref sends its task by a call of its own.
    const [byLane, byCall] = await ctx.get([ctx.get(names.map((name) => ctx.run(shape, name))), ctx.get(names.map((name) => ctx.run(shape, ctx.put(name))))]);
    names.forEach((name, i) => assert.deepEqual(byLane[i], byCall[i], name));
    const args = [1.5, -0, Number.NaN, "héllo ☃", "a\uD800b", true, null, undefined];
    const [wrappedByLane, wrappedByCall] = await ctx.get([
      ctx.get(args.map((arg) => ctx.run(wrap, arg))),
      ctx.get(args.map((arg) => ctx.run(wrap, ctx.put(arg)))),
    ]);
    args.forEach((arg, i) => assert.deepEqual(wrappedByLane[i], wrappedByCall[i], String(arg)));
  });

  it("a task by the lane runs in its Executor's context as one by a call does (context() and currentRank() say the same)", async () => {
    await ctx.get(ctx.run(whereAmI, 0)); // located: the next go in batches, by the lane
    // One at a time, so both run on the first worker (the one with the most free cpu, the first of equals).
    const byLane = await ctx.get(ctx.run(whereAmI, 1));
    const byCall = await ctx.get(ctx.run(whereAmI, ctx.put(1)));
    assert.equal(byLane.className, "Executor");
    assert.deepEqual(byLane, byCall);
  });

  it("a worker thread that exits mid-task fails its task with SupervisionError, or with maxRetries runs it again elsewhere; later tasks run", async () => {
    const located = join(dir, "located");
    writeFileSync(located, "");
    assert.equal(await ctx.get(ctx.run(exitOnce, located, 0)), 0); // located: the next go in batches
    assert.equal(await ctx.get(ctx.createTask(exitOnce, [join(dir, "retried"), 5], { maxRetries: 1 })), 5);
    await assert.rejects(ctx.get(ctx.run(exitOnce, join(dir, "failed"), 7)), (e: Error) => e instanceof SupervisionError && /cannot complete/.test(e.message));
    assert.deepEqual(
      await ctx.get(Array.from({ length: 100 }, (_, i) => ctx.run(add, i, 1))),
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
  });
});
