// maxRestarts, maxTaskRetries and maxConcurrency of a job's actors (in its
// private namespace here; test/job/namespace.test.ts has the shared one).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { SupervisionError } from "../../src/mesh.ts";
import { Overlapping, Refuses, Restartable } from "../fixtures/namespace-actors.ts";
import { isAlive, waitForExit } from "../helpers.ts";

describe("actor restarts and concurrency (processes backend)", () => {
  let ctx: JobContext;
  let dir: string;
  before(() => {
    ctx = createJobContext("processes", { maxWorkers: 2 });
    dir = mkdtempSync(join(tmpdir(), "fray-restarts-test-"));
  });
  after(async () => {
    await ctx.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it("kill -9 with maxRestarts 2: the constructor runs again in a new process, twice; the third death rejects calls naming the cause", async () => {
    // maxTaskRetries: a call made just after a kill may be in flight before the death is known; it is sent again rather than rejected.
    const actor = await ctx.createActor(Restartable, [], { maxRestarts: 2, maxTaskRetries: -1 });
    const pids: number[] = [];
    for (let life = 0; life < 3; life++) {
      assert.equal(await ctx.get(actor.bump.remote()), 1, `life ${life}: state starts from the constructor`);
      assert.equal(await ctx.get(actor.bump.remote()), 2);
      const pid = await ctx.get(actor.pid.remote());
      assert.ok(!pids.includes(pid), "each life is a new process");
      pids.push(pid);
      process.kill(pid, "SIGKILL");
      await waitForExit([pid]);
    }
    await assert.rejects(
      ctx.get(actor.bump.remote()),
      (e: Error) => e instanceof SupervisionError && /died and is not started again: it was restarted 2 times \(maxRestarts 2\)/.test(e.message),
    );
    assert.ok(pids.every((p) => !isAlive(p)));
  });

  it("a call in flight when the actor dies rejects with SupervisionError; with maxTaskRetries 1 it is sent again to the restarted actor", async () => {
    const plain = await ctx.createActor(Restartable, [], { maxRestarts: 1 });
    await assert.rejects(ctx.get(plain.crashOnce.remote(join(dir, "plain"))), SupervisionError);
    assert.equal(await ctx.get(plain.bump.remote()), 1, "restarted after the crash");
    const retried = await ctx.createActor(Restartable, [], { maxRestarts: 1, maxTaskRetries: 1 });
    const first = await ctx.get(retried.pid.remote());
    const answer = await ctx.get(retried.crashOnce.remote(join(dir, "retried")));
    assert.match(answer, /^survived in \d+$/);
    assert.notEqual(answer, `survived in ${first}`, "answered by the new process");
  });

  it("a constructor that throws fails createActor with its error, even with maxRestarts -1 (a failed start is not a death to restart from)", async () => {
    await assert.rejects(ctx.createActor(Refuses, [], { maxRestarts: -1 }), (e: Error) => e instanceof RangeError && e.message === "will not start");
    await assert.rejects(ctx.createActor(Refuses, [], { maxRestarts: -1, name: "refuses" }), /will not start/);
    await assert.rejects(ctx.killActor("refuses"), /there is no actor named 'refuses'/, "its name was freed");
  });

  it("maxConcurrency 4: four async calls overlap (all enter before any exits); the default runs them one at a time", async () => {
    for (const [options, expected] of [
      [{ maxConcurrency: 4 }, ["enter 0", "enter 1", "enter 2", "enter 3"]],
      [{}, ["enter 0", "exit 0", "enter 1", "exit 1"]],
    ] as const) {
      const actor = await ctx.createActor(Overlapping, [], options);
      await ctx.get([0, 1, 2, 3].map((i) => actor.work.remote(i)));
      const log = await ctx.get(actor.log.remote());
      assert.deepEqual(log.slice(0, 4), expected);
      assert.equal(log.length, 8);
    }
  });

  it("maxConcurrency 4 holds for an actor with restarts too (hosted in a process of its own)", async () => {
    const actor = await ctx.createActor(Overlapping, [], { maxConcurrency: 4, maxRestarts: 1 });
    await ctx.get([0, 1, 2, 3].map((i) => actor.work.remote(i)));
    assert.deepEqual((await ctx.get(actor.log.remote())).slice(0, 4), ["enter 0", "enter 1", "enter 2", "enter 3"]);
  });
});

describe("maxConcurrency on the sync backend", () => {
  it("four async calls overlap with maxConcurrency 4, and run one at a time by default", async () => {
    const ctx = createJobContext("sync");
    const wide = await ctx.createActor(Overlapping, [], { maxConcurrency: 4 });
    await ctx.get([0, 1, 2, 3].map((i) => wide.work.remote(i)));
    assert.deepEqual((await ctx.get(wide.log.remote())).slice(0, 4), ["enter 0", "enter 1", "enter 2", "enter 3"]);
    const narrow = await ctx.createActor(Overlapping, []);
    await ctx.get([0, 1].map((i) => narrow.work.remote(i)));
    assert.deepEqual(await ctx.get(narrow.log.remote()), ["enter 0", "exit 0", "enter 1", "exit 1"]);
  });
});
