// Scheduling on the worker backends: tasks wait for their resources, and a task
// whose worker died runs again elsewhere (maxRetries).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createJobContext } from "../../src/job.ts";
import { SupervisionError } from "../../src/mesh.ts";
import { add, after, Counter, pid, PidReporter, timed } from "../fixtures/tasks.ts";
import { Board, spin } from "../fixtures/cancel-tasks.ts";
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

  it("without retries, a task on a dead worker fails with SupervisionError; the worker is started again", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 1 });
    const [worker] = await ctx.get([ctx.run(pid)]);
    const slow = ctx.run(after, 60_000, "never");
    const [, pending] = await ctx.wait([slow], { timeout: 0.05 });
    assert.equal(pending.length, 1);
    process.kill(worker, "SIGKILL");
    await assert.rejects(ctx.get(slow), (e: Error) => e instanceof SupervisionError && /SIGKILL/.test(e.message));
    const fresh = await ctx.get(ctx.run(pid)); // on the worker started in its place
    assert.notEqual(fresh, worker);
    assert.equal(isAlive(worker), false);
  });

  it("killing an actor that died with its replaced worker does not give its GPU back a second time", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 1, resources: { cpu: 1, gpu: 1 } });
    const gauge = await ctx.createActor(Board, [], { maxConcurrency: 64, preemptible: false }); // in a process of its own
    await ctx.createActor(Counter, [], { name: "holder", resources: { gpu: 1, cpu: 0 } });
    // A task cancelled with force that computes without end: its worker is replaced, and the actor dies with it.
    const stuck = ctx.run(spin, gauge, "spin");
    await ctx.get(gauge.waitFor.remote("spin:started"));
    await ctx.cancel(stuck, { force: true });
    await assert.rejects(ctx.get(stuck));
    assert.equal(await ctx.get(ctx.run(add, 1, 2)), 3); // waits for the cpu, so runs on the fresh worker
    await ctx.killActor("holder");
    // One GPU: the two tasks run one after the other.
    const spans = await ctx.get([0, 1].map(() => ctx.createTask(timed, [200], { resources: { gpu: 1, cpu: 0 } })));
    const [first, second] = spans.sort((a, b) => a[0] - b[0]);
    assert.ok(second[0] >= first[1], `two {gpu: 1} tasks overlapped on a 1-GPU worker: ${JSON.stringify(spans)}`);
  });

  it("a named actor whose worker died frees its name: getIfExists gives a live actor", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 2, resources: { cpu: 1, gpu: 1 } });
    const options = { name: "reporter", getIfExists: true, resources: { gpu: 1, cpu: 0 } };
    const first = await ctx.createActor(PidReporter, [], options);
    const dead = await ctx.get(first.pid.remote());
    process.kill(dead, "SIGKILL");
    await waitForExit([dead]);
    await assert.rejects(ctx.get(first.pid.remote()));
    // The head hears of the worker's death on its own path: a few tries, each a full createActor and call.
    let live: number | undefined;
    for (let i = 0; i < 20 && live === undefined; i++) {
      const again = await ctx.createActor(PidReporter, [], options);
      live = await ctx.get(again.pid.remote()).catch(() => new Promise<undefined>((r) => setTimeout(r, 50)));
    }
    assert.ok(live !== undefined && live !== dead && isAlive(live), `getIfExists gave the dead actor (pid ${dead}) every time`);
  });

  it("an actor created right after its worker died is placed once the worker is started again, not refused", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 1 });
    const first = await ctx.createActor(PidReporter);
    const dead = await ctx.get(first.pid.remote());
    process.kill(dead, "SIGKILL");
    await assert.rejects(ctx.get(first.pid.remote()));
    for (const options of [{}, { name: "again", getIfExists: true }]) {
      const again = await ctx.createActor(PidReporter, [], options); // before the worker is back: it waits for it
      const live = await ctx.get(again.pid.remote());
      assert.ok(live !== dead && isAlive(live), `the new actor runs in a live process (${live}), not the dead ${dead}`);
    }
  });

  it("actors that ask for nothing spread over the workers", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 3 });
    const members = await Promise.all([0, 1, 2].map(() => ctx.createActor(PidReporter)));
    const pids = await ctx.get(members.map((m) => m.pid.remote()));
    assert.equal(new Set(pids).size, 3, `three actors on ${new Set(pids).size} worker(s): ${pids.join(", ")}`);
  });
});
