// A worker thread that has sent its tasks' values and has no task running waits for the next
// batch at its doorbell (src/job/routes/thread-lane/doorbell.ts) for FRAY_THREAD_WAIT_MS, and takes it there, without
// its event loop. Everything else its parent sends rings the same doorbell, so nothing waits behind
// that wait; a task still running (a timer in it, say) keeps the thread in its event loop.
import assert from "node:assert/strict";
import { after as afterAll, before, describe, it } from "node:test";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { armImmediate, doorbellWakes, ranImmediate } from "../fixtures/lane-tasks.ts";
import { add, after } from "../fixtures/tasks.ts";

/** A job on one worker thread, started (its first task run) with FRAY_THREAD_WAIT_MS=`waitMs`: threads take the environment they start with. */
async function jobWaiting(waitMs: string, first: (ctx: JobContext) => Promise<void>): Promise<JobContext> {
  const before = process.env.FRAY_THREAD_WAIT_MS;
  process.env.FRAY_THREAD_WAIT_MS = waitMs;
  const ctx = createJobContext("threads", { maxWorkers: 1 });
  try {
    await first(ctx);
    return ctx;
  } catch (err) {
    await ctx.shutdown();
    throw err;
  } finally {
    if (before === undefined) delete process.env.FRAY_THREAD_WAIT_MS;
    else process.env.FRAY_THREAD_WAIT_MS = before;
  }
}

/** Its worker is up, with the setting. */
const started = async (ctx: JobContext) => assert.equal(await ctx.get(ctx.run(add, 0, 1)), 1);

describe("a worker thread waiting at its doorbell", () => {
  let ctx: JobContext;
  before(async () => {
    // The longest wait allowed: a message that did not wake the thread would wait a second for each.
    ctx = await jobWaiting("1000", started);
  });
  afterAll(() => ctx.shutdown());

  it("takes a one-at-a-time caller's next task at its doorbell", async () => {
    const woken = await ctx.get(ctx.run(doorbellWakes));
    for (let i = 0; i < 100; i++) assert.equal(await ctx.get(ctx.run(add, i, 1)), i + 1);
    assert.ok((await ctx.get(ctx.run(doorbellWakes))) >= woken + 50, "most of the 100 tasks were taken after a wait");
  });

  it("lets its event loop turn at least every 32 tasks it takes at its doorbell: a setImmediate of its own runs", async () => {
    await ctx.get([ctx.run(armImmediate), ctx.run(ranImmediate)]); // located: the next go by the lane
    await ctx.get(ctx.run(armImmediate));
    let ran = false;
    for (let i = 0; i < 100 && !ran; i++) ran = await ctx.get(ctx.run(ranImmediate));
    assert.ok(ran, "the immediate ran while tasks came one after another");
  });

  // Each message that failed to wake the thread would wait its second: 40 of them would outlast the 20 s this test has.
  it(
    "still takes at once what comes by a call (a task given a ref), tasks that wait on a timer, and values that are not plain",
    { timeout: 20_000 },
    async () => {
      const ref = ctx.put(5);
      for (let i = 0; i < 40; i++) {
        assert.equal(await ctx.get(ctx.run(add, i, 1)), i + 1); // by the lane: the thread then waits
        assert.equal(await ctx.get(ctx.run(add, ref, i)), 5 + i); // by a call: the parent's transport rings
        assert.equal(await ctx.get(ctx.run(after, 1, i)), i); // by the lane, running across a timer
        assert.deepEqual(await ctx.get(ctx.run(after, 0, new Map([[i, i]]))), new Map([[i, i]])); // its value comes back by a call
        // Two at once: the second's value goes back while the first still waits on its timer, so the thread must not
        // wait; the first sent ahead of its cpu (a start report to send) or asking for none (nothing to send).
        assert.deepEqual(await ctx.get([ctx.run(after, 1, i), ctx.run(add, i, 1)]), [i, i + 1]);
        assert.deepEqual(await ctx.get([ctx.createTask(after, [1, i], { resources: { cpu: 0 } }), ctx.run(add, i, 1)]), [i, i + 1]);
      }
    },
  );
});

it("with FRAY_THREAD_WAIT_MS=0 a worker thread never waits at its doorbell", async () => {
  const ctx = await jobWaiting("0", started);
  try {
    for (let i = 0; i < 100; i++) assert.equal(await ctx.get(ctx.run(add, i, 1)), i + 1);
    assert.equal(await ctx.get(ctx.run(doorbellWakes)), 0);
  } finally {
    await ctx.shutdown();
  }
});

describe("FRAY_THREAD_WAIT_MS out of its range", () => {
  it("fails the job's first task, naming the setting and what it allows; shutdown then stops its worker thread", async () => {
    const refused = /FRAY_THREAD_WAIT_MS=2000 is more than the most allowed, 1000 milliseconds/;
    await assert.rejects(
      jobWaiting("2000", (ctx) => ctx.get(ctx.run(add, 0, 1)).then(() => {})),
      refused,
    );
    // The thread's port was what kept this process open once its Executor had failed to start.
    assert.deepEqual(
      process.getActiveResourcesInfo().filter((r) => r === "MessagePort"),
      [],
    );
  });
});
