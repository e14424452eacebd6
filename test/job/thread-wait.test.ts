// A worker thread that has sent its tasks' values and has no task running waits for the next
// batch at its doorbell (src/job/routes/thread-lane/doorbell.ts) for FRAY_THREAD_WAIT_MS, and takes it there, without
// its event loop. Everything else its parent sends rings the same doorbell, so nothing waits behind
// that wait; a task still running (a timer in it, say) keeps the thread in its event loop. What does not ring does
// not wait long behind it either: the thread waits after its promise callbacks, FRAY_THREAD_WAIT_MS in all per turn
// of its event loop, and not at all while it holds a timer or socket of its own (an actor's, or one a task left open).
import assert from "node:assert/strict";
import { after as afterAll, before, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { armImmediate, doorbellWakes, ranImmediate } from "../fixtures/lane-tasks.ts";
import { add, after } from "../fixtures/tasks.ts";
import {
  chainSaw,
  doorbellCounts,
  holdServer,
  holdTimer,
  leaveChain,
  releaseServer,
  releaseTimer,
  thread,
  Ticker,
  turnAndWakes,
} from "../fixtures/doorbell-tasks.ts";

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

  it("runs a setImmediate of its own while tasks come one after another", async () => {
    await ctx.get([ctx.run(armImmediate), ctx.run(ranImmediate)]); // located: the next go by the lane
    await ctx.get(ctx.run(armImmediate));
    let ran = false;
    for (let i = 0; i < 100 && !ran; i++) ran = await ctx.get(ctx.run(ranImmediate));
    assert.ok(ran, "the immediate ran while tasks came one after another");
  });

  it("runs a task's promise callbacks before it waits", async () => {
    await ctx.get(ctx.run(leaveChain)); // its function loaded: the next runs at once, and its value goes back in the same turn
    await ctx.get(ctx.run(leaveChain));
    for (let i = 0; i < 5; i++) assert.equal(await ctx.get(ctx.run(add, i, 1)), i + 1);
    const saw = await ctx.get(ctx.run(chainSaw));
    assert.ok(saw !== null && saw.wakesAfter !== null, "the chain ran");
    assert.equal(saw.wakesAfter, saw.wakesBefore, "no wait ended with a task before the chain's last callback");
  });

  /** While `hold`'s handle is open, tasks one after another find the thread in its event loop; after `release`, at its doorbell. */
  async function noWaitWhileHeld(hold: () => Promise<unknown>, release: () => Promise<unknown>): Promise<void> {
    await hold();
    let held;
    try {
      const before = await ctx.get(ctx.run(doorbellCounts));
      for (let i = 0; i < 30; i++) assert.equal(await ctx.get(ctx.run(add, i, 1)), i + 1);
      held = await ctx.get(ctx.run(doorbellCounts));
      assert.equal(held.wakes, before.wakes, "no task was taken after a wait");
      // A wait passed up after most tasks (tasks whose values go back together share one).
      assert.ok(held.declined > before.declined, "the thread passed up waits");
    } finally {
      await release();
    }
    for (let i = 0; i < 30; i++) assert.equal(await ctx.get(ctx.run(add, i, 1)), i + 1);
    assert.ok((await ctx.get(ctx.run(doorbellCounts))).wakes >= held.wakes + 15, "released, it waits again");
  }

  it("does not wait while a task left a timer of its own set", () =>
    noWaitWhileHeld(
      () => ctx.get(ctx.run(holdTimer)),
      () => ctx.get(ctx.run(releaseTimer)),
    ));

  it("does not wait while a task left a server of its own listening", () =>
    noWaitWhileHeld(
      () => ctx.get(ctx.run(holdServer)),
      () => ctx.get(ctx.run(releaseServer)),
    ));

  it("does not wait while an actor of the thread ticks on a 10 ms setInterval", async () => {
    let ticker: Awaited<ReturnType<typeof ctx.createActor<Ticker>>> | undefined;
    await noWaitWhileHeld(
      async () => {
        ticker = await ctx.createActor(Ticker);
        assert.equal(await ctx.get(ticker.thread.remote()), await ctx.get(ctx.run(thread)), "the actor shares the tasks' thread");
      },
      () => ctx.get(ticker!.halt.remote()),
    );
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

it("with FRAY_THREAD_WAIT_MS=5 a worker thread's waits block a turn of its event loop for 5 ms in all", async () => {
  const ctx = await jobWaiting("5", started);
  try {
    // Tasks 2 ms apart (a timer of 2 ms fires 1 ms or more after it is set), each taken after a wait of 1 ms or more:
    // the waits of one turn that end with a task are six at most (five of them spend the turn's 5 ms); a task taken
    // after a wake by something else the parent sent is marked so too. Tasks taken after a wait are counted by turn.
    const seen: number[][] = [];
    for (let i = 0; i < 100; i++) {
      seen.push((await ctx.get(ctx.run(turnAndWakes))).split(":").map(Number));
      await delay(2);
    }
    const woken = new Map<number, number>();
    seen.forEach(([turn, wakes], i) => i > 0 && wakes > seen[i - 1][1] && woken.set(turn, (woken.get(turn) ?? 0) + 1));
    assert.ok([...woken.values()].reduce((a, b) => a + b, 0) >= 20, "tasks were taken after a wait");
    assert.ok(Math.max(...woken.values()) <= 7, `tasks taken after a wait, by turn: ${[...woken.values()]}`);
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
