// ctx.cancel on every backend: a pending task never starts, a running one sees
// its signal abort (or, computing without end and cancelled with { force: true },
// loses its worker, which is replaced), get rejects with TaskCancelledError, nested
// tasks go with their parent unless { recursive: false }, and a finished task keeps
// its value. What a cancel spares is cancel-neighbours.test.ts.
// Tasks report to a Board actor; the test waits on its marks, not on timers.
import assert from "node:assert/strict";
import { after as afterAll, before, describe, it } from "node:test";
import { createJobContext, TaskCancelledError, type ActorHandle, type JobContext, type ObjectRef } from "../../src/job.ts";
import { thisHost, type ProcMesh } from "../../src/mesh.ts";
import { add } from "../fixtures/tasks.ts";
import { Board, cancelFromTask, parentOf, Producer, record, spin, untilCancelled, waitForKey, where } from "../fixtures/cancel-tasks.ts";
import { isAlive, track, waitForExit } from "../helpers.ts";

type Make = (workers: number) => { ctx: JobContext; procs?: ProcMesh };
const backends: Array<[string, Make]> = [
  ["sync", () => ({ ctx: createJobContext("sync") })],
  ["threads", (workers) => ({ ctx: createJobContext("threads", { maxWorkers: workers }) })],
  ["processes", (workers) => ({ ctx: createJobContext("processes", { maxWorkers: workers }) })],
  [
    "mesh",
    (workers) => {
      const procs = track(thisHost().spawnProcs({ workers }));
      return { ctx: createJobContext("mesh", { procs }), procs };
    },
  ],
];

/** The TaskCancelledError of `name`, message and all. */
const cancelledAs = (name: string) => (e: unknown) => {
  assert.ok(e instanceof TaskCancelledError, String(e));
  assert.equal(e.taskName, name);
  assert.equal(e.message, `task ${name} was cancelled (ctx.cancel): it has no result; run it again for one`);
  return true;
};
const cancelled = (name: RegExp) => (e: unknown) => e instanceof TaskCancelledError && name.test(e.taskName) && /was cancelled/.test(e.message);

for (const [kind, make] of backends) {
  describe(`cancel on ${kind}`, () => {
    let ctx: JobContext;
    let procs: ProcMesh | undefined;
    let board: ActorHandle<Board>;
    before(async () => {
      ({ ctx, procs } = make(2));
      // In a process of its own (preemptible: false), so that no worker a test replaces takes the board with it.
      board = await ctx.createActor(Board, [], { maxConcurrency: 64, preemptible: false });
    });
    afterAll(async () => {
      await ctx.shutdown();
      await procs?.stop();
    });

    it("a pending task never starts, and get rejects with TaskCancelledError", async () => {
      const gate = ctx.run(waitForKey, board, "pending.go");
      const victim = ctx.createTask(record, [board, "pending.victim", gate], { resources: { cpu: 1 } });
      await ctx.cancel(victim);
      await assert.rejects(ctx.get(victim), cancelled(/record/));
      await ctx.get(board.mark.remote("pending.go"));
      assert.equal(await ctx.get(ctx.run(record, board, "pending.after", gate)), "pending.after");
      assert.deepEqual(
        (await ctx.get(board.keys.remote())).filter((k) => k.startsWith("pending.")),
        ["pending.go", "pending.after"],
      );
    });

    it("a running async task sees its signal abort with the TaskCancelledError, and its resources are free again", async () => {
      const task = ctx.run(untilCancelled, board, "async");
      await ctx.get(board.waitFor.remote("async:started"));
      await ctx.cancel(task);
      await assert.rejects(ctx.get(task), cancelled(/untilCancelled/));
      assert.equal(await ctx.get(board.waitFor.remote("async:aborted")), "TaskCancelledError");
      // Every worker's cpu is free: as many tasks as workers run at once. (An explicit request: tasks with the default
      // one may be sent ahead to a busy worker, to start when it is free, which these never are.)
      const all = [0, 1].map((i) => ctx.createTask(untilCancelled, [board, `free${i}`], { resources: { cpu: 1 } }));
      await ctx.get([0, 1].map((i) => board.waitFor.remote(`free${i}:started`)));
      for (const t of all) await ctx.cancel(t);
    });

    it("cancels the tasks a task started (recursive, the default)", async () => {
      const parent = ctx.run(parentOf, board, "rec");
      await ctx.get(board.waitFor.remote("rec.child:started"));
      await ctx.cancel(parent);
      await assert.rejects(ctx.get(parent), cancelled(/parentOf/));
      assert.equal(await ctx.get(board.waitFor.remote("rec.child:aborted")), "TaskCancelledError");
      const [child] = (await ctx.get(board.waitFor.remote("rec.childRef"))) as [ObjectRef<string>];
      await assert.rejects(ctx.get(child), cancelled(/untilCancelled/));
    });

    it("with { recursive: false }, the tasks it started run on", async () => {
      const parent = ctx.run(parentOf, board, "flat");
      await ctx.get(board.waitFor.remote("flat.child:started"));
      await ctx.cancel(parent, { recursive: false });
      await assert.rejects(ctx.get(parent), cancelled(/parentOf/));
      const [child] = (await ctx.get(board.waitFor.remote("flat.childRef"))) as [ObjectRef<string>];
      assert.deepEqual(await ctx.wait([child], { timeout: 0 }), [[], [child]]);
      assert.equal((await ctx.get(board.keys.remote())).includes("flat.child:aborted"), false);
      await ctx.cancel(child);
      assert.equal(await ctx.get(board.waitFor.remote("flat.child:aborted")), "TaskCancelledError");
    });

    it("a task cancels another task", async () => {
      const victim = ctx.run(untilCancelled, board, "other");
      await ctx.get(board.waitFor.remote("other:started"));
      assert.equal(await ctx.get(ctx.createTask(cancelFromTask, [{ ref: victim }], { resources: { cpu: 1 } })), "cancelled");
      await assert.rejects(ctx.get(victim), cancelled(/untilCancelled/));
      assert.equal(await ctx.get(board.waitFor.remote("other:aborted")), "TaskCancelledError");
    });

    it("an actor call's ref rejects with TaskCancelledError; the call itself runs on", async () => {
      const call = board.waitFor.remote("call.go");
      await ctx.cancel(call);
      await assert.rejects(ctx.get(call), TaskCancelledError);
      // The actor was not interrupted: it still answers a call that waits for the same mark (and ends the first).
      const again = board.waitFor.remote("call.go");
      await ctx.get(board.mark.remote("call.go"));
      assert.equal(await ctx.get(again), true);
    });

    it("TaskCancelledError names what was cancelled: TaskOptions.name, else the function's name; Class.method for an actor call or stream", async () => {
      const named = ctx.createTask(untilCancelled, [board, "names.named"], { name: "trial-3" });
      const unnamed = ctx.run(untilCancelled, board, "names.unnamed");
      await ctx.get([board.waitFor.remote("names.named:started"), board.waitFor.remote("names.unnamed:started")]);
      await ctx.cancel(named);
      await ctx.cancel(unnamed);
      await assert.rejects(ctx.get(named), cancelledAs("trial-3"));
      await assert.rejects(ctx.get(unnamed), cancelledAs("untilCancelled"));
      const call = board.waitFor.remote("names.never");
      await ctx.cancel(call);
      await assert.rejects(ctx.get(call), cancelledAs("Board.waitFor"));
      const producer = await ctx.createActor(Producer, []);
      const ticks = producer.ticks.remoteStreaming();
      const reading = ticks[Symbol.asyncIterator]();
      assert.equal(await ctx.get((await reading.next()).value), 0);
      await ctx.cancel(ticks);
      const readToEnd = async () => {
        for (let next = await reading.next(); !next.done; next = await reading.next()) await ctx.get(next.value);
      };
      await assert.rejects(readToEnd(), cancelledAs("Producer.ticks"));
    });

    it("cancelling a finished task does nothing: get still gives its value", async () => {
      const ref = ctx.run(add, 2, 3);
      assert.equal(await ctx.get(ref), 5);
      await ctx.cancel(ref);
      assert.equal(await ctx.get(ref), 5);
      const put = ctx.put("kept");
      await ctx.cancel(put);
      assert.equal(await ctx.get(put), "kept");
    });

    it("refuses what is not a ref", async () => {
      await assert.rejects(async () => ctx.cancel("task" as never), /cancel\(\) takes an ObjectRef/);
    });

    it("refuses an option it does not have, and a force that is not true or false, naming them; the task runs on", async () => {
      const task = ctx.run(add, 1, 2);
      await assert.rejects(ctx.cancel(task, { forced: true } as never), /unknown option 'forced'; the options are recursive and force/);
      await assert.rejects(ctx.cancel(task, { force: "yes" } as never), /cancel\(ref, \{ force \}\) takes true or false, got "yes"/);
      assert.equal(await ctx.get(task), 3);
    });

    if (kind !== "sync") {
      // On sync a task computing without end never returns control to cancel it: the backend runs tasks inline.
      it("with { force: true }, replaces the worker of a cancelled task that computes without end; later tasks run on the fresh one", async () => {
        const one = make(1);
        try {
          const gauge = await one.ctx.createActor(Board, [], { maxConcurrency: 64, preemptible: false });
          const before = await one.ctx.get(one.ctx.run(where));
          const stuck = one.ctx.run(spin, gauge, "spin");
          await one.ctx.get(gauge.waitFor.remote("spin:started"));
          await one.ctx.cancel(stuck, { force: true });
          await assert.rejects(one.ctx.get(stuck), cancelled(/spin/));
          assert.equal(await one.ctx.get(one.ctx.run(add, 1, 2)), 3);
          const now = await one.ctx.get(one.ctx.run(where));
          assert.notEqual(now, before, "a fresh worker runs the later task");
          if (kind !== "threads") {
            const old = Number(before.split(":")[0]);
            await waitForExit([old]);
            assert.equal(isAlive(old), false);
          }
        } finally {
          await one.ctx.shutdown();
          await one.procs?.stop();
        }
      });
    }
  });
}
