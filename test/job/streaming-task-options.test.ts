// A streaming task takes a task's options — name, resources, maxRetries, env — as well as its window, and each does
// what it says: env is the generator body's across its awaits, name is the one its errors give, a request no worker
// can meet fails the stream naming it, and a stream whose worker died runs again (maxRetries) without its reader
// seeing a value twice. Options a task does not have are refused, naming them.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after as afterAll, before, describe, it } from "node:test";
import { TaskCancelledError, type JobContext } from "../../src/job.ts";
import type { ProcMesh } from "../../src/mesh.ts";
import { crashOnce, envSeen, oneThenWait } from "../fixtures/stream-option-tasks.ts";
import { square } from "../fixtures/tasks.ts";
import { jobBackends } from "../helpers.ts";

async function readAll<T>(stream: AsyncIterable<{ id: string }>, ctx: JobContext): Promise<T[]> {
  const values: T[] = [];
  for await (const ref of stream) values.push((await ctx.get(ref as never)) as T);
  return values;
}

for (const [kind, make] of jobBackends(["sync", "threads", "processes", "mesh"], 2)) {
  describe(`streaming task options on ${kind}`, () => {
    let ctx: JobContext;
    let procs: ProcMesh | undefined;
    let dir: string;
    before(async () => {
      ({ ctx, procs } = await make());
      dir = mkdtempSync(join(tmpdir(), "fray-stream-options-"));
    });
    afterAll(async () => {
      await ctx.shutdown();
      await procs?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("env is the generator's own across its awaits", async () => {
      const stream = ctx.createStreamingTask(envSeen, ["FRAY_TEST_STREAM_ENV"], { env: { FRAY_TEST_STREAM_ENV: "set" } });
      assert.deepEqual(await readAll(stream, ctx), ["set", "set"]);
      assert.equal(process.env.FRAY_TEST_STREAM_ENV, undefined, "not the driver's");
    });

    it("name is the one a cancel's error gives", async () => {
      const stream = ctx.createStreamingTask(oneThenWait, [], { name: "ticker" });
      const iterator = stream[Symbol.asyncIterator]();
      assert.equal(await ctx.get((await iterator.next()).value!), 1);
      await ctx.cancel(stream);
      await assert.rejects(iterator.next(), (err: unknown) => err instanceof TaskCancelledError && err.taskName === "ticker");
    });

    if (kind !== "sync") {
      // (sync has no workers: it accepts resources and ignores them, as for any task)
      it("a resource no worker has fails the stream, naming it", async () => {
        const stream = ctx.createStreamingTask(oneThenWait, [], { resources: { gpu: 1 } });
        await assert.rejects(readAll(stream, ctx), /gpu/);
      });
    }

    it("options a streaming task does not have, or malformed ones, are refused naming them", () => {
      assert.throws(() => ctx.createStreamingTask(oneThenWait, [], { maxConcurrency: 2 } as never), /no option 'maxConcurrency'.*window/);
      assert.throws(() => ctx.createStreamingTask(oneThenWait, [], { maxRetries: 1.5 }), /maxRetries .* integer ≥ -1/);
      assert.throws(() => ctx.createTask(square, [2], { window: 2 } as never), /no option 'window' \(a stream's option: use createStreamingTask\)/);
      assert.throws(() => ctx.createTask(square, [2], { retries: 3 } as never), /no option 'retries'; its options are name, resources, maxRetries, env/);
      assert.throws(() => ctx.createTask(square, [2], { env: { A: 1 } } as never), /env of task .* strings/);
    });

    if (kind !== "sync") {
      it("maxRetries: a stream whose worker died runs again, and its reader sees each value once, in order", async () => {
        const stream = ctx.createStreamingTask(crashOnce, [join(dir, "crashed"), 12, 5], { maxRetries: 1 });
        assert.deepEqual(
          await readAll(stream, ctx),
          Array.from({ length: 12 }, (_, i) => i),
        );
      });
    }
  });
}
