// Tasks with several returns (`createTask(fn, args, { numReturns: n })`, docs/design/object-store.md slice 5): n refs,
// one per value of the array the task returns, each held (if large) or inlined and released on its own; a task that
// returns anything else fails with an error that names it; a lost holder makes the whole task run again.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, it } from "node:test";
import { createJobContext, ObjectLostError, TaskCancelledError, type JobContext, type ObjectRef } from "../../src/job.ts";
import { objectStats } from "../../src/job/base/metrics.ts";
import { thisHost } from "../../src/mesh.ts";
import { track } from "../helpers.ts";
import { heldHere } from "./held-results-tasks.ts";
import { nestedSpread, nestedUnsendable, partitions, partitionsTelling, returnAsIs, slowSpread, spread, total, trio } from "./multiple-returns-tasks.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** 1 MiB of doubles per partition: far above the default inline threshold (100 KiB). */
const N = 131_072;

const all: Array<[string, (workers: number) => JobContext]> = [
  ["sync", () => createJobContext("sync")],
  ["threads", (workers) => createJobContext("threads", { maxWorkers: workers })],
  ["processes", (workers) => createJobContext("processes", { maxWorkers: workers })],
  ["mesh", (workers) => createJobContext("mesh", { procs: track(thisHost().spawnProcs({ workers })) })],
];

for (const [kind, make] of all) {
  describe(`numReturns on ${kind}`, () => {
    it("gives one ref per returned value; tasks and the driver read each on its own", async () => {
      await using ctx = make(2);
      const refs = ctx.createTask(spread, [4, 3], { numReturns: 4 });
      assert.equal(refs.length, 4);
      assert.ok(new Set(refs.map((r) => r.id)).size === 4, "each return has a ref of its own");
      assert.deepEqual(await ctx.get(refs), [0, 3, 6, 9]);
      assert.equal(await ctx.get(refs[2]), 6);
      const [label, length, long] = ctx.createTask(trio, ["shuffle"], { numReturns: 3 });
      assert.deepEqual(await ctx.get([label, length, long]), ["shuffle", 7, true]);
      const one = ctx.createTask(spread, [1, 5], { numReturns: 1 });
      assert.equal(one.length, 1, "numReturns: 1 gives an array of one ref");
      assert.equal(await ctx.get(one[0]), 0);
      if (kind !== "sync") assert.equal(await ctx.get(ctx.run(nestedSpread, 5)), 20, "a task's own tasks have several returns too");
    });

    if (kind !== "sync") {
      it("a task's own task with several returns whose argument cannot be sent fails its returns (none waits forever)", async () => {
        await using ctx = make(1);
        assert.match(await ctx.get(ctx.run(nestedUnsendable)), /argument 1 of spread: the function cannot be sent/);
      });
    }

    it("a task that does not return an array of exactly n values fails every ref, naming the task, n and what it returned", async () => {
      await using ctx = make(1);
      const cases: Array<[unknown, RegExp]> = [
        [[1, 2], /an array of 2 values/],
        [7, /a number/],
        [undefined, /undefined/],
        [new Map(), /a Map/],
      ];
      for (const [value, what] of cases) {
        const refs = ctx.createTask(returnAsIs, [value], { numReturns: 3 });
        for (const ref of refs) {
          await assert.rejects(ctx.get(ref), (err: Error) => {
            assert.match(err.message, /task returnAsIs/);
            assert.match(err.message, /numReturns: 3/);
            assert.match(err.message, what);
            assert.match(err.message, /return an array of exactly 3 values/);
            return true;
          });
        }
      }
    });

    it("cancelling one return cancels its task: every return rejects", async () => {
      await using ctx = make(1);
      const refs = ctx.createTask(slowSpread, [3], { numReturns: 3 });
      await ctx.cancel(refs[1]);
      for (const ref of refs) await assert.rejects(ctx.get(ref), TaskCancelledError);
    });
  });
}

describe("numReturns is checked", () => {
  it("rejects anything but a whole number ≥ 1, naming the task and the fix", () => {
    const ctx = createJobContext("sync");
    for (const bad of [0, -1, 1.5, Infinity, "2", null]) {
      assert.throws(
        () => ctx.createTask(spread, [2, 1], { numReturns: bad as number }),
        (err: Error) => {
          assert.ok(err instanceof RangeError || err instanceof TypeError, err.name);
          assert.match(err.message, /numReturns of task spread/);
          assert.match(err.message, /whole number, at least 1/);
          return true;
        },
      );
    }
  });

  it("a streaming task has no numReturns: it yields its values one ref each", () => {
    const ctx = createJobContext("sync");
    async function* gen() {
      yield 1;
    }
    assert.throws(() => ctx.createStreamingTask(gen, [], { numReturns: 2 } as never), /streaming task gen has no option 'numReturns'/);
  });
});

const holders: Array<[string, (workers: number) => JobContext]> = all.slice(2);

for (const [kind, make] of holders) {
  describe(`large returns on ${kind}`, () => {
    it("each large return is held by its worker, read where needed and freed once its own ref is dropped", async () => {
      await using ctx = make(1);
      const before = objectStats.bytes;
      const kept = async () => {
        const refs: ObjectRef<Float64Array>[] = ctx.createTask(partitions, [3, N], { numReturns: 3 });
        await ctx.wait(refs, { numReturns: 3 });
        assert.equal(objectStats.bytes - before, 0, "the driver's object store holds none of their bytes");
        assert.equal(await ctx.get(ctx.run(heldHere)), 3, "the worker holds each return as a value of its own");
        assert.equal(await ctx.get(ctx.run(total, refs[1])), 2 * N);
        assert.equal((await ctx.get(refs[2]))[N - 1], 3);
        return refs[0]; // the others are dropped here
      };
      const first = await kept();
      let held = await ctx.get(ctx.run(heldHere));
      for (let round = 0; round < 100 && held > 1; round++) {
        gc();
        await new Promise((r) => setImmediate(r));
        held = await ctx.get(ctx.run(heldHere));
      }
      assert.equal(held, 1, "the dropped returns are freed; the one still referenced stays");
      assert.equal((await ctx.get(first))[0], 1);
    });

    it("a killed holder's returns are made anew by one run of their task when maxRetries allow", async () => {
      const dir = mkdtempSync(join(tmpdir(), "fray-returns-"));
      try {
        await using ctx = make(2);
        const log = join(dir, "runs");
        const refs = ctx.createTask(partitionsTelling, [2, N, log], { numReturns: 2, maxRetries: 1 });
        await ctx.wait(refs, { numReturns: 2 });
        process.kill(Number(readFileSync(log, "utf8").trim()), "SIGKILL");
        const sums = await Promise.all([ctx.get(ctx.createTask(total, [refs[0]], { maxRetries: 1 })), ctx.get(refs[1])]);
        assert.equal(sums[0], N);
        assert.equal(sums[1][0], 2);
        assert.equal(readFileSync(log, "utf8").trim().split("\n").length, 2, "both returns came from one more run of the task");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("without retries, a read of a lost return rejects with ObjectLostError naming that return's ref", async () => {
      const dir = mkdtempSync(join(tmpdir(), "fray-returns-"));
      try {
        await using ctx = make(1);
        const log = join(dir, "runs");
        const refs = ctx.createTask(partitionsTelling, [2, N, log], { numReturns: 2 });
        await ctx.wait(refs, { numReturns: 2 });
        process.kill(Number(readFileSync(log, "utf8").trim()), "SIGKILL");
        await assert.rejects(ctx.get(refs[1]), (err: Error) => {
          assert.ok(err instanceof ObjectLostError, `${err.name}: ${err.message}`);
          assert.match(err.message, new RegExp(`ObjectRef\\(${refs[1].id.replace(".", "\\.")}\\)`));
          assert.match(err.message, /task partitionsTelling/);
          return true;
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
