// Scheduling on the worker backends: tasks wait for their resources, and a task
// whose worker died runs again elsewhere (maxRetries).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createJobContext } from "../../src/job.ts";
import { SupervisionError } from "../../src/mesh.ts";
import { after, pid, timed } from "../fixtures/tasks.ts";
import { isAlive, waitForExit } from "../helpers.ts";

describe("scheduling", () => {
  it("a task waits until the resources it asks for are free", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 2, resources: { cpu: 1, gpu: 1 } });
    // Three tasks wanting one GPU each, on two workers with one GPU each: two at a time.
    const spans = await ctx.get([0, 1, 2].map(() => ctx.createTask(timed, [100], { resources: { gpu: 1, cpu: 0 } })));
    const sorted = spans.sort((a, b) => a[0] - b[0]);
    // The third started only after one of the first two finished.
    assert.ok(sorted[2][0] >= Math.min(sorted[0][1], sorted[1][1]), `spans ${JSON.stringify(sorted)}`);
  });

  it("killing one of 4 worker processes mid-batch: with maxRetries the batch still completes", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 4 });
    const pids = [...new Set(await ctx.get(Array.from({ length: 40 }, () => ctx.run(pid))))];
    assert.ok(pids.length >= 2, `tasks ran in ${pids.length} worker(s)`);
    const batch = Array.from({ length: 100 }, (_, i) => ctx.createTask(after, [10, i], { maxRetries: 2 }));
    const firstDone = await ctx.wait(batch, { numReturns: 5 });
    assert.equal(firstDone[0].length, 5);
    process.kill(pids[0], "SIGKILL");
    assert.deepEqual(
      await ctx.get(batch),
      Array.from({ length: 100 }, (_, i) => i),
    );
    await waitForExit([pids[0]]);
  });

  it("without retries, a task on a dead worker fails with SupervisionError", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 1 });
    const [worker] = await ctx.get([ctx.run(pid)]);
    const slow = ctx.run(after, 60_000, "never");
    const [, pending] = await ctx.wait([slow], { timeout: 0.05 });
    assert.equal(pending.length, 1);
    process.kill(worker, "SIGKILL");
    await assert.rejects(ctx.get(slow), (e: Error) => e instanceof SupervisionError && /SIGKILL/.test(e.message));
    await assert.rejects(ctx.get(ctx.run(pid)), /every worker of this job has died/);
    assert.equal(isAlive(worker), false);
  });
});
