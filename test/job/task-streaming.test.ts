// Streaming tasks and streaming actor methods on every backend: one ref per
// yielded value, in order, handed out while the generator still runs; an error
// ends the stream after the values before it; leaving the loop cancels the
// task. The generators wait on a Board actor the test marks, not on timers.
import assert from "node:assert/strict";
import { after as afterAll, before, describe, it } from "node:test";
import { createJobContext, TaskCancelledError, type ActorHandle, type JobContext, type ObjectRef } from "../../src/job.ts";
import { thisHost, type ProcMesh } from "../../src/mesh.ts";
import { Board, countTo, failAfter, notAGenerator, Producer, streamingParent, sumOfStream, untilLeft, yieldAll } from "../fixtures/cancel-tasks.ts";
import { track } from "../helpers.ts";

const backends: Array<[string, () => { ctx: JobContext; procs?: ProcMesh }]> = [
  ["sync", () => ({ ctx: createJobContext("sync") })],
  ["threads", () => ({ ctx: createJobContext("threads", { maxWorkers: 2 }) })],
  ["processes", () => ({ ctx: createJobContext("processes", { maxWorkers: 2 }) })],
  [
    "mesh",
    () => {
      const procs = track(thisHost().spawnProcs({ workers: 2 }));
      return { ctx: createJobContext("mesh", { procs }), procs };
    },
  ],
];

for (const [kind, make] of backends) {
  describe(`streaming on ${kind}`, () => {
    let ctx: JobContext;
    let procs: ProcMesh | undefined;
    let board: ActorHandle<Board>;
    before(async () => {
      ({ ctx, procs } = make());
      board = await ctx.createActor(Board, [], { maxConcurrency: 64 });
    });
    afterAll(async () => {
      await ctx.shutdown();
      await procs?.stop();
    });

    it("hands out one ref per yielded value, in order, the first while the generator still runs", async () => {
      const refs: ObjectRef<number>[] = [];
      for await (const ref of ctx.runStreaming(countTo, board, 4)) {
        refs.push(ref);
        // The generator yields its next values only once this is marked: the first ref came before it finished.
        if (refs.length === 1) await ctx.get(board.mark.remote("more"));
      }
      assert.deepEqual(await ctx.get(refs), [0, 1, 2, 3]);
    });

    it("an error in the generator ends the stream with it, after the refs of the values before", async () => {
      const seen: string[] = [];
      const stream = ctx.runStreaming(failAfter, ["a", "b"]);
      const reading = (async () => {
        for await (const ref of stream) seen.push(await ctx.get(ref));
      })();
      await assert.rejects(reading, (e: Error) => e.name === "ValueError" && e.message === "failed after 2");
      assert.deepEqual(seen, ["a", "b"]);
    });

    it("leaving the loop cancels the task: its signal aborts and the generator is closed", async () => {
      const stream = ctx.runStreaming(untilLeft, board, "left");
      const got: number[] = [];
      for await (const ref of stream) {
        got.push(await ctx.get(ref));
        if (got.length === 2) break;
      }
      assert.deepEqual(got, [0, 1]);
      assert.equal(await ctx.get(board.waitFor.remote("left:closed")), true);
      await assert.rejects(ctx.get(stream.ref), TaskCancelledError);
    });

    it("ctx.cancel takes a stream; reading it then rejects with TaskCancelledError", async () => {
      const stream = ctx.runStreaming(untilLeft, board, "cancelled");
      await ctx.cancel(stream);
      await assert.rejects(async () => {
        for await (const ref of stream) await ctx.get(ref);
      }, TaskCancelledError);
    });

    it("ctx.cancel of a stream whose task already finished ends its reader at once, with TaskCancelledError", async () => {
      const readOne = ctx.runStreaming(yieldAll, [1, 2, 3]);
      const reading = readOne[Symbol.asyncIterator]();
      const first = await reading.next();
      assert.equal(await ctx.get(first.value as ObjectRef<number>), 1);
      assert.equal(await ctx.get(readOne.ref), 3); // the generator returned
      await ctx.cancel(readOne);
      await assert.rejects(reading.next(), (e: unknown) => e instanceof TaskCancelledError && e.taskName === "yieldAll");
      assert.deepEqual(await reading.next(), { done: true, value: undefined });

      const readNone = ctx.createStreamingTask(yieldAll, [[1, 2]], { name: "my-trial" });
      assert.equal(await ctx.get(readNone.ref), 2);
      await ctx.cancel(readNone.ref);
      await assert.rejects(
        async () => {
          for await (const ref of readNone) await ctx.get(ref);
        },
        (e: unknown) => e instanceof TaskCancelledError && e.taskName === "my-trial",
      );
    });

    it("a stream is read once", async () => {
      const stream = ctx.runStreaming(failAfter, []);
      const reading = stream[Symbol.asyncIterator]();
      assert.throws(() => stream[Symbol.asyncIterator](), /is a stream being read already/);
      await assert.rejects(reading.next(), /failed after 0/);
    });

    it("refuses a function that is not a generator, naming it", async () => {
      const stream = ctx.runStreaming(notAGenerator as never);
      await assert.rejects(async () => {
        for await (const ref of stream) void ref;
      }, /notAGenerator returned number, not an async iterable: a streaming task is an async generator function/);
    });

    it("a task reads a stream it started, and cancelling the task cancels its streams", async () => {
      const sum = ctx.run(sumOfStream, board, 3);
      await ctx.get(board.mark.remote("more")); // marked already by the first test, unless it runs alone
      assert.deepEqual(await ctx.get(sum), [0, 1, 2]);

      const parent = ctx.run(streamingParent, board, "nested");
      await ctx.get(board.waitFor.remote("nested:read"));
      await ctx.cancel(parent);
      assert.equal(await ctx.get(board.waitFor.remote("nested:closed")), true);
    });

    it("streams an actor's async generator method: remoteStreaming", async () => {
      const producer = await ctx.createActor(Producer);
      const refs: ObjectRef<number>[] = [];
      for await (const ref of producer.count.remoteStreaming(3)) refs.push(ref);
      assert.deepEqual(await ctx.get(refs), [0, 10, 20]);

      const values: number[] = [];
      for await (const ref of producer.ticks.remoteStreaming()) {
        values.push(await ctx.get(ref));
        if (values.length === 3) break;
      }
      assert.deepEqual(values, [0, 1, 2]);
      // The generator held the actor's one call slot: this call runs once it was closed.
      assert.equal(await ctx.get(producer.wasClosed.remote()), true);

      const before: number[] = [];
      await assert.rejects(async () => {
        for await (const ref of producer.failing.remoteStreaming()) before.push(await ctx.get(ref));
      }, /producer failed/);
      assert.deepEqual(before, [1]);
    });

    it("an actor in a process of its own (a namespace hosts it) streams too", async () => {
      const hosted = await ctx.createActor(Producer, [], { preemptible: false });
      const refs: ObjectRef<number>[] = [];
      for await (const ref of hosted.count.remoteStreaming(2)) refs.push(ref);
      assert.deepEqual(await ctx.get(refs), [0, 10]);
      for await (const ref of hosted.ticks.remoteStreaming()) if ((await ctx.get(ref)) === 1) break;
      assert.equal(await ctx.get(hosted.wasClosed.remote()), true);
    });
  });
}
