// A cancel spares the actors and tasks beside the cancelled task: without { force: true } its worker is never
// replaced — not for a task that awaits something deaf to its signal, nor for a stream its reader leaves early —
// while { force: true } replaces the worker (ending the subprocesses the task started) and names the cancelled
// task in what fails with it. One worker per job, so the neighbour shares the cancelled task's worker.
import assert from "node:assert/strict";
import { after as afterAll, before, describe, it } from "node:test";
import { TaskCancelledError, type ActorHandle, type JobContext } from "../../src/job.ts";
import { SupervisionError, type ProcMesh } from "../../src/mesh.ts";
import { add } from "../fixtures/tasks.ts";
import { Board, cancelFromTask, spin } from "../fixtures/cancel-tasks.ts";
import { awaitTimer, runSubprocess, slowBetweenYields } from "./cancel-neighbours-tasks.ts";
import { isAlive, jobBackends } from "../helpers.ts";

/** Longer than FRAY_CANCEL_GRACE_MS's default (1 s), which no cancel without force waits for. */
const PAST_GRACE_MS = 1500;

/** Resolves once `pid` is gone, or after `ms` (the caller asserts which): nothing reports a grandchild's end. */
async function goneWithin(pid: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

for (const [kind, make] of jobBackends(["threads", "processes", "mesh"], 1)) {
  describe(`a cancel on ${kind} spares its neighbours`, () => {
    let ctx: JobContext;
    let procs: ProcMesh | undefined;
    let neighbour: ActorHandle<Board>;
    before(async () => {
      ({ ctx, procs } = await make());
      neighbour = await ctx.createActor(Board, [], { maxConcurrency: 64 }); // on the one worker
    });
    afterAll(async () => {
      await ctx.shutdown();
      await procs?.stop();
    });

    it("a task awaiting what ignores its signal: its ref rejects at once, and the actor beside it still answers", async () => {
      const task = ctx.run(awaitTimer, neighbour, "deaf", PAST_GRACE_MS);
      await ctx.get(neighbour.waitFor.remote("deaf:started"));
      await ctx.cancel(task);
      await assert.rejects(ctx.get(task), TaskCancelledError);
      assert.ok(!(await ctx.get(neighbour.keys.remote())).includes("deaf:ended"), "the ref settled before the task ended");
      // The task ends on its own once released; its worker, and the actor on it, lived on.
      await ctx.get(neighbour.mark.remote("deaf:release"));
      assert.equal(await ctx.get(neighbour.waitFor.remote("deaf:ended")), true);
      assert.ok((await ctx.get(neighbour.keys.remote())).includes("deaf:ended"));
      assert.equal(await ctx.get(ctx.run(add, 1, 2)), 3);
    });

    it("leaving a stream early, while its generator waits between yields, is a cancel that spares the actor beside it", async () => {
      const stream = ctx.runStreaming(slowBetweenYields, neighbour, "slow", PAST_GRACE_MS);
      for await (const ref of stream) {
        assert.equal(await ctx.get(ref), 0);
        // Left once the generator is past its yield: left sooner, the cancel stops it at the yield (as it should) and
        // it never waits, let alone resumes (the reader's cancel can overtake its next pull on a loaded machine).
        await ctx.get(neighbour.waitFor.remote("slow:waiting"));
        break; // I have enough
      }
      await assert.rejects(ctx.get(stream.ref), TaskCancelledError);
      assert.equal(await ctx.get(neighbour.waitFor.remote("slow:resumed")), true);
      assert.ok((await ctx.get(neighbour.keys.remote())).includes("slow:resumed"));
    });

    it("{ force: true } replaces the worker, and the actor and task that die with it are told which cancelled task took them", async () => {
      const doomed = await ctx.createActor(Board, [], { maxConcurrency: 64 }); // beside the task
      const beside = ctx.createTask(awaitTimer, [doomed, "beside", 600_000], { resources: { cpu: 0 } });
      await ctx.get(doomed.waitFor.remote("beside:started"));
      const stuck = ctx.run(spin, doomed, "spin");
      await ctx.get(doomed.waitFor.remote("spin:started"));
      const pending = doomed.waitFor.remote("never");
      await ctx.cancel(stuck, { force: true });
      await assert.rejects(ctx.get(stuck), TaskCancelledError);
      await assert.rejects(ctx.get(pending), (e: unknown) => {
        assert.ok(e instanceof SupervisionError, String(e));
        assert.match(e.message, /Board\.waitFor/);
        assert.match(e.message, /replaced to stop cancelled task spin \(ctx\.cancel with force: true\)/);
        return true;
      });
      await assert.rejects(ctx.get(beside), (e: unknown) => {
        assert.ok(e instanceof SupervisionError, String(e));
        assert.match(
          e.message,
          /^task awaitTimer on worker 0 cannot complete: the worker was replaced to stop cancelled task spin \(ctx\.cancel with force: true\)$/,
        );
        return true;
      });
      assert.equal(await ctx.get(ctx.run(add, 1, 2)), 3); // on the fresh worker
      neighbour = await ctx.createActor(Board, [], { maxConcurrency: 64 }); // for the tests after this one
    });

    it("{ force: true }, from another task, ends the subprocesses the cancelled task started", async () => {
      const doomed = await ctx.createActor(Board, [], { maxConcurrency: 64 });
      const task = ctx.run(runSubprocess, doomed, "sub");
      const pid = (await ctx.get(doomed.waitFor.remote("sub:pid"))) as number;
      try {
        assert.ok(isAlive(pid));
        const pending = doomed.waitFor.remote("never");
        const canceller = ctx.createTask(cancelFromTask, [{ ref: task }, { force: true }], { resources: { cpu: 0 } }); // beside it
        assert.equal(await ctx.get(canceller), "cancelled");
        await assert.rejects(ctx.get(task), TaskCancelledError);
        await assert.rejects(ctx.get(pending), SupervisionError); // the worker was replaced
        await goneWithin(pid, 5000);
        assert.equal(isAlive(pid), false, `subprocess ${pid} of the force-cancelled task outlived its worker`);
        assert.equal(await ctx.get(ctx.run(add, 1, 2)), 3); // on the fresh worker
      } finally {
        if (isAlive(pid)) process.kill(pid, "SIGKILL");
      }
    });
  });

  it(`on ${kind}, the job's shutdown ends the subprocess of a cancelled task that never ended`, async () => {
    const { ctx, procs } = await make();
    let pid = 0;
    try {
      const board = await ctx.createActor(Board, [], { maxConcurrency: 64 });
      const task = ctx.run(runSubprocess, board, "left");
      pid = (await ctx.get(board.waitFor.remote("left:pid"))) as number;
      await ctx.cancel(task); // without force: the task, waiting for its subprocess, runs on
      await assert.rejects(ctx.get(task), TaskCancelledError);
      await ctx.shutdown();
      await procs?.stop();
      await goneWithin(pid, 5000);
      assert.equal(isAlive(pid), false, `subprocess ${pid} of a cancelled task outlived the job`);
    } finally {
      await ctx.shutdown();
      await procs?.stop();
      if (pid !== 0 && isAlive(pid)) process.kill(pid, "SIGKILL");
    }
  });
}
