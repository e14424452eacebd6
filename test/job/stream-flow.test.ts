// Streams stream: a value reaches its reader while the generator still runs, whatever the generator does between
// yields (computes for seconds, or yields rows from memory with no await); many values are never one frame over the
// limit; a window of credit keeps a generator at most that many items ahead of its reader; and a stream dropped
// unread is cancelled and its items released. The generators report to a Board actor how far they got.
import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { after as afterAll, before, describe, it } from "node:test";
import type { ActorHandle, JobContext, ObjectRef, ObjectRefStream } from "../../src/job.ts";
import type { ProcMesh } from "../../src/mesh.ts";
import { Board } from "../fixtures/cancel-tasks.ts";
import { numbered, rows, ticking, train, Trainer, windowedReader } from "../fixtures/stream-tasks.ts";
import { jobBackends } from "../helpers.ts";
import { collect } from "./object-borrowers-tasks.ts";

// Frames of at most 4 MiB for every process of this file (its workers inherit it): 2,000 rows of 8 KiB are 16 MiB.
process.env.FRAY_MAX_FRAME_BYTES = String(4 * 2 ** 20);
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** More items than a dropped stream's generator could make before its cancel stops it: a stream that ends only by its cancel. */
const ENDLESS = Number.MAX_SAFE_INTEGER;

/** How many objects the job keeps (the sync context's is a getter, the others ask their head). */
async function objectCount(ctx: JobContext): Promise<number> {
  const count = (ctx as unknown as { objectCount: number | (() => Promise<number>) }).objectCount;
  return typeof count === "function" ? count.call(ctx) : count;
}

for (const [kind, make] of jobBackends(["sync", "threads", "processes", "mesh"], 2)) {
  describe(`streams stream on ${kind}`, () => {
    let ctx: JobContext;
    let procs: ProcMesh | undefined;
    let board: ActorHandle<Board>;
    before(async () => {
      ({ ctx, procs } = await make());
      board = await ctx.createActor(Board, [], { maxConcurrency: 64 });
    });
    afterAll(async () => {
      await ctx.shutdown();
      await procs?.stop();
    });

    it("a generator computing between yields hands out its first value while it runs: leaving after it stops the training early", async () => {
      const epochs = 200;
      for await (const ref of ctx.runStreaming(train, board, "train", epochs, 10)) {
        assert.equal(await ctx.get(ref), 0);
        break;
      }
      const ran = (await ctx.get(board.waitFor.remote("train:epochs"))) as number;
      assert.ok(ran < epochs, `the generator ran all ${ran} epochs: its reader's cancel never reached it`);
    });

    it("2,000 rows of 8 KiB yielded from memory all arrive under a 4 MiB frame limit", async () => {
      const refs: ObjectRef<string>[] = [];
      for await (const ref of ctx.runStreaming(rows, 2_000, 8 * 1024)) refs.push(ref);
      assert.equal(refs.length, 2_000);
      const values = await ctx.get(refs);
      assert.ok(values.every((row) => row.length === 8 * 1024));
    });

    it("a window of 4 keeps the generator 4 items ahead of its reader, no more", async () => {
      let read = 0;
      // Having read 3, the reader leaves once the generator is about to yield its 7th: as far as the window lets it go.
      for await (const ref of ctx.createStreamingTask(numbered, [board, "window", 1_000, 3 + 4], { window: 4 })) {
        assert.equal(await ctx.get(ref), read++);
        if (read === 3) {
          await ctx.get(board.waitFor.remote("window:shown"));
          break;
        }
      }
      assert.equal(await ctx.get(board.waitFor.remote("window:made")), 3 + 4);
    });

    it("a task's stream keeps to its window too", async () => {
      assert.equal(await ctx.get(ctx.run(windowedReader, board, "nested-window")), 0);
      assert.equal(await ctx.get(board.waitFor.remote("nested-window:made")), 1 + 2);
    });

    it("an actor's stream keeps to its window too", async () => {
      const trainer = await ctx.createActor(Trainer);
      let read = 0;
      for await (const ref of trainer.numbered.options({ window: 2 }).remoteStreaming(board, "actor-window", 1_000, 5 + 2)) {
        assert.equal(await ctx.get(ref), read++);
        if (read === 5) {
          await ctx.get(board.waitFor.remote("actor-window:shown"));
          break;
        }
      }
      assert.equal(await ctx.get(board.waitFor.remote("actor-window:made")), 5 + 2);
    });

    it("a window of Infinity is no backpressure; a window that is not a positive whole number is refused, naming the option", async () => {
      const refs: ObjectRef<number>[] = [];
      for await (const ref of ctx.createStreamingTask(numbered, [board, "unbounded", 10], { window: Infinity })) refs.push(ref);
      assert.deepEqual(await ctx.get(refs), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      for (const window of [0, -1, 1.5, Number.NaN, "4" as unknown as number]) {
        assert.throws(() => ctx.createStreamingTask(numbered, [board, "never", 1], { window }), /window .* a whole number of items, at least 1, or Infinity/);
      }
      assert.throws(() => board.keys.options({ window: 0 }), /the window 0 of the stream of method keys is not a whole number of items/);
    });

    /**
     * Drops `stream` once its generator yielded 200 items (dropped sooner, it might never start); resolves with how many
     * it made in all. It would make ENDLESS: only the cancel its drop causes stops it, however slow the machine.
     */
    async function dropped(key: string, held: { stream: ObjectRefStream<number> | null }): Promise<number> {
      await ctx.get(board.waitFor.remote(`${key}:running`));
      held.stream = null;
      let made: number | undefined;
      void ctx.get(board.waitFor.remote(`${key}:made`)).then((n) => (made = n as number));
      for (let round = 0; round < 2000 && made === undefined; round++) {
        gc();
        await new Promise((resolve) => setImmediate(resolve));
        await ctx.get(board.keys.remote());
      }
      assert.ok(made !== undefined && made < ENDLESS, `the dropped stream's generator did not stop: it made ${made}`);
      return made;
    }

    it("a stream dropped unread is cancelled and its items released", async () => {
      const before = await objectCount(ctx);
      await dropped("dropped", { stream: ctx.runStreaming(ticking, board, "dropped", ENDLESS, 200) });
      let count = await objectCount(ctx);
      for (let round = 0; round < 100 && count > before + 5; round++) {
        gc();
        await new Promise((resolve) => setImmediate(resolve));
        count = await objectCount(ctx);
      }
      assert.ok(count <= before + 5, `the job keeps ${count} objects, ${before} before the stream of 200 items and more`);
    });

    it("streams read to their end, or left early, keep nothing at the head once their refs are garbage", async () => {
      const trainer = await ctx.createActor(Trainer);
      const before = await objectCount(ctx);
      const read = async (stream: ObjectRefStream<number>, all: boolean) => {
        for await (const ref of stream) if ((await ctx.get(ref)) === 0 && !all) break;
      };
      for (let i = 0; i < 30; i++) {
        await read(ctx.runStreaming(numbered, board, `kept-${i}`, 3), true);
        await read(ctx.runStreaming(numbered, board, `left-${i}`, 3), false);
        await read(trainer.ticking.remoteStreaming(board, `actor-${i}`, 3, 0), true);
      }
      let count = await objectCount(ctx);
      for (let round = 0; round < 100 && count > before + 5; round++) {
        gc();
        await ctx.get([ctx.run(collect), ctx.run(collect)]); // and both workers' garbage: their refs to the streams they ran are dropped then
        await new Promise((resolve) => setImmediate(resolve));
        count = await objectCount(ctx);
      }
      assert.ok(count <= before + 5, `the job keeps ${count} objects, ${before} before 90 streams`);
    });

    it("an actor's stream dropped unread is cancelled: its generator stops", async () => {
      const trainer = await ctx.createActor(Trainer);
      await dropped("actor-dropped", { stream: trainer.ticking.remoteStreaming(board, "actor-dropped", ENDLESS, 200) });
    });
  });
}
