// Large task results stay in the worker that made them (docs/design/object-store.md, slice 1): the driver's
// object store holds none of their bytes, a task on another worker reads them from the holder, the driver's get
// pulls them, the holder frees them once the driver drops its ref, and a dead holder's values reject with
// ObjectLostError instead of hanging.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ObjectLostError, type ObjectRef } from "../../src/job.ts";
import { objectStats } from "../../src/job/base/metrics.ts";
import { bigResult, bigResultTelling, heldHere, pidOf, sumByGet, sumOf } from "./held-results-tasks.ts";
import { gc, heldBackends, N } from "./held-backends.ts";

for (const [kind, make] of heldBackends) {
  describe(kind, () => {
    it("a large result stays in its worker: tasks on other workers and the driver read it from there", async () => {
      await using ctx = make(2);
      const before = objectStats.bytes;
      const ref = ctx.run(bigResult, N, 2);
      await ctx.wait([ref]);
      assert.equal(objectStats.bytes - before, 0, "the driver's object store holds none of the result's bytes");
      // Two readers at once take both workers: one reads where the value is, the other from the holder.
      const readers = await ctx.get([ctx.run(sumOf, ref), ctx.run(sumByGet, { ref })]);
      assert.deepEqual(
        readers.map((r) => r.sum),
        [2 * N, 2 * N],
      );
      assert.notEqual(readers[0].pid, readers[1].pid, "the readers ran on both workers");
      const big = await ctx.get(ref);
      assert.equal(big.length, N);
      assert.equal(big[N - 1], 2);
      assert.equal(objectStats.bytes - before, 0, "nor after its readers and the driver's get");
    });

    it("another job's task and driver read a large result from the worker of the job that made it", async () => {
      await using maker = make(1);
      await using user = make(1);
      const before = objectStats.bytes;
      const ref = maker.run(bigResult, N, 6);
      await maker.wait([ref]);
      assert.equal((await user.get(user.run(sumOf, ref))).sum, 6 * N);
      assert.equal((await user.get(ref))[N - 1], 6);
      assert.equal(objectStats.bytes - before, 0, "neither job's driver keeps its bytes");
    });

    it("the holder frees the value once the driver drops its last ref", async () => {
      await using ctx = make(1);
      const read = async () => {
        const ref: ObjectRef<Float64Array> = ctx.run(bigResult, N, 1);
        const length = (await ctx.get(ref)).length;
        assert.equal(await ctx.get(ctx.run(heldHere)), 1, "the worker holds the value while its ref lives");
        return length;
      };
      assert.equal(await read(), N);
      let held = await ctx.get(ctx.run(heldHere));
      for (let round = 0; round < 100 && held > 0; round++) {
        gc();
        await new Promise((r) => setImmediate(r));
        held = await ctx.get(ctx.run(heldHere));
      }
      assert.equal(held, 0);
    });

    it("a read of a value whose holder was killed rejects with ObjectLostError naming the ref, its task and the worker", async () => {
      await using ctx = make(1);
      const pid = await ctx.get(ctx.run(pidOf));
      const ref = ctx.run(bigResult, N, 3);
      await ctx.wait([ref]);
      process.kill(pid, "SIGKILL");
      await assert.rejects(ctx.get(ref), (err: Error) => {
        assert.ok(err instanceof ObjectLostError, `${err.name}: ${err.message}`);
        assert.match(err.message, new RegExp(`ObjectRef\\(${ref.id}\\)`));
        assert.match(err.message, /task bigResult/);
        assert.match(err.message, /worker 0/);
        return true;
      });
    });

    it("a task given a value whose holder was killed, on the worker left, fails with ObjectLostError", async () => {
      const dir = mkdtempSync(join(tmpdir(), "fray-held-"));
      try {
        await using ctx = make(2);
        const pidFile = join(dir, "holder");
        const ref = ctx.run(bigResultTelling, N, 5, pidFile);
        await ctx.wait([ref]);
        process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL");
        // A reader sent to the dying worker before its death is known runs again on the other one.
        const reader = ctx.createTask(sumOf, [ref], { maxRetries: 1 });
        await assert.rejects(ctx.get(reader), (err: Error) => {
          assert.ok(err instanceof ObjectLostError, `${err.name}: ${err.message}`);
          assert.match(err.message, /task bigResultTelling/);
          return true;
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("a value whose holder was killed is made anew by its task when maxRetries allow, for the driver and for tasks", async () => {
      const dir = mkdtempSync(join(tmpdir(), "fray-held-"));
      try {
        await using ctx = make(2);
        const pidFile = join(dir, "holder");
        const ref = ctx.createTask(bigResultTelling, [N, 4, pidFile], { maxRetries: 1 });
        await ctx.wait([ref]);
        process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL");
        // The readers may be sent to the dying worker before its death is known: they may run again too.
        const readers = [ctx.createTask(sumOf, [ref], { maxRetries: 1 }), ctx.createTask(sumByGet, [{ ref }], { maxRetries: 1 })];
        const [big, ...sums] = await Promise.all([ctx.get(ref), ...readers.map((r) => ctx.get(r))]);
        assert.equal(big.length, N);
        assert.equal(big[0], 4);
        assert.deepEqual(
          sums.map((r) => r.sum),
          [4 * N, 4 * N],
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
