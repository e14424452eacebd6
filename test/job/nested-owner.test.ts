// A task's nested tasks' refs are owned by the task's worker (docs/design/object-store.md, "Who owns what"): the head
// schedules the task and sends its outcome to the owner, keeping nothing; the parent's get answers there with no call
// to the head; the driver and other tasks read the value through the owner; the owner frees it once every ref is gone;
// a dead owner's refs reject with ObjectLostError; a lost holder's value is made anew from the owner's lineage.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createJobContext, ObjectLostError, type ObjectRef } from "../../src/job.ts";
import { HeadActor } from "../../src/job/head/head-actor.ts";
import { refCountsOf } from "../../src/job/objects/ref-counts.ts";
import { collectUntil, headCalls, heldBackends, N, ownerBackends } from "./held-backends.ts";
import { check, checkByGet, collect } from "./put-owner-tasks.ts";
import {
  cancelNested,
  ownedHere,
  runAndGet,
  runChained,
  runHere,
  runMade,
  runMany,
  runReturns,
  runWithOneUnsendable,
  readMade,
  runPairMade,
  runNear,
  parentWholeCpu,
  where,
} from "./nested-owner-tasks.ts";

/** Resolves once the head's remoteSubmit is called for task `id` (the head runs in this, the driver's, process). */
function submitOf(id: string): Promise<void> {
  const proto = HeadActor.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const original = proto.remoteSubmit;
  return new Promise((resolve) => {
    proto.remoteSubmit = function (this: unknown, ...args: unknown[]) {
      if (args[0] === id) {
        proto.remoteSubmit = original;
        resolve();
      }
      return original.apply(this, args);
    };
  });
}

for (const [kind, make] of ownerBackends) {
  describe(kind, () => {
    for (const [size, n] of [
      ["small", 16],
      ["1 MiB", N],
    ] as const) {
      it(`a ${size} nested task's value waited for and got by its parent asks the head nothing, and is exact`, async () => {
        await using ctx = make(1);
        await ctx.get(ctx.run(collect)); // the worker is up
        let result: { id: string; exact: boolean } | undefined;
        const calls = await headCalls(["remoteGet", "remoteWait", "remoteBorrow", "remoteReturn"], async () => {
          result = await ctx.get(ctx.run(runAndGet, n, 7));
        });
        assert.equal(result!.exact, true);
        assert.equal(calls, 0, "the parent's get and wait went to its worker's owner, not the head");
        assert.deepEqual(refCountsOf(result!.id), { own: 0, borrowed: 0 }, "the head never counted the ref");
      });

      it(`a ${size} nested task's ref returned to the driver and given to tasks reads exactly, owned by the parent's worker`, async () => {
        await using ctx = make(2);
        const { ref } = await ctx.get(ctx.run(runHere, n, 3));
        const got = await ctx.get(ref);
        assert.equal(got.length, n);
        assert.ok(got.every((x) => x === 3));
        assert.deepEqual(refCountsOf(ref.id), { own: 0, borrowed: 0 }, "the head does not own it");
        const readers = await ctx.get([ctx.run(check, ref, n, 3), ctx.run(checkByGet, { ref }, n, 3)]);
        assert.deepEqual(
          readers.map((r) => r.exact),
          [true, true],
        );
      });
    }

    it("a nested task's ref given to a task before its value is made is waited for, at the head and from the driver", async () => {
      await using ctx = make(2);
      assert.equal((await ctx.get(ctx.run(runChained, N, 6))).exact, true);
      const { ref } = await ctx.get(ctx.run(runHere, N, 8));
      assert.equal((await ctx.get(ctx.run(check, ref, N, 8))).exact, true);
      assert.deepEqual(refCountsOf(ref.id), { own: 0, borrowed: 0 }, "the head does not own it");
    });

    it("nested tasks submitted in one turn go together, and one whose argument cannot be sent fails alone", async () => {
      await using ctx = make(1);
      assert.deepEqual(await ctx.get(ctx.run(runWithOneUnsendable)), ["3", "SerializationError", "4"]);
    });

    it("a nested task cancelled through its owner rejects its get with TaskCancelledError", async () => {
      await using ctx = make(1);
      assert.deepEqual(await ctx.get(ctx.run(cancelNested)), { error: "TaskCancelledError", owned: 1 });
    });

    it("a parent waiting for its nested task lends the head its cpu: a nested task asking for a whole one runs", async () => {
      await using ctx = make(1);
      assert.equal(await ctx.get(ctx.createTask(parentWholeCpu, [], { resources: { cpu: 1 } })), 1);
    });

    it("the owner keeps a nested task's value until every ref is gone, then frees it", async () => {
      await using ctx = make(1);
      const lend = async () => {
        const { ref } = await ctx.get(ctx.run(runHere, N, 4));
        assert.equal((await ctx.get(ref))[N - 1], 4);
        assert.equal(await ctx.get(ctx.run(ownedHere)), 1, "its worker's owner keeps it");
      };
      await lend();
      assert.ok(await collectUntil(ctx, collect, async () => (await ctx.get(ctx.run(ownedHere))) === 0), "freed once the driver dropped it too");
    });

    it("each return of a nested task is an entry of its own at the owner, and many nested tasks sum exactly", async () => {
      await using ctx = make(1);
      assert.deepEqual(await ctx.get(ctx.run(runReturns)), { values: [1, 2], owned: 2 });
      assert.equal(await ctx.get(ctx.run(runMany, 200)), (200 * 199) / 2);
      assert.ok(await collectUntil(ctx, collect, async () => (await ctx.get(ctx.run(ownedHere))) === 0), "all freed");
    });
  });
}

for (const [kind, make] of heldBackends) {
  it(`a nested task's ref whose parent's worker was killed rejects the driver's get with ObjectLostError (${kind})`, async () => {
    await using ctx = make(1);
    const { ref, pid }: { ref: ObjectRef<Float64Array>; pid: number } = await ctx.get(ctx.run(runHere, 16, 1));
    process.kill(pid, "SIGKILL");
    await assert.rejects(ctx.get(ref), (err: Error) => {
      assert.ok(err instanceof ObjectLostError, `${err.name}: ${err.message}`);
      assert.match(err.message, new RegExp(`ObjectRef\\(${ref.id}\\), made in worker 0 `));
      assert.match(err.message, /its owner, that process, .*gone/);
      return true;
    });
  });

  for (const retries of [1, 0])
    it(`a nested task's large value whose holder was killed is ${retries ? "made anew by its owner at once" : "lost without retries"} (${kind})`, async () => {
      await using ctx = make(2);
      await ctx.get([ctx.run(where), ctx.run(where)]); // both workers are up
      // The nested task must run on the worker its parent is not on: tried until it does.
      for (let tries = 0; tries < 30; tries++) {
        const { ref, pid: parent } = await ctx.get(ctx.run(runMade, N, 5, retries));
        const first = await ctx.get(ref);
        if (first.pid === parent) continue;
        assert.deepEqual(refCountsOf(ref.id), { own: 0, borrowed: 0 }, "owned by the parent's worker, not the head");
        const resubmitted = retries === 0 ? null : submitOf(ref.id);
        process.kill(first.pid, "SIGKILL");
        // Made anew at the holder's death, as the head does for its own values, before anyone reads it.
        if (resubmitted) {
          const alive = setInterval(() => {}, 60_000); // nothing else holds this process while it waits for the event
          await resubmitted.finally(() => clearInterval(alive));
        }
        if (retries === 0) {
          await assert.rejects(ctx.get(ref), (err: Error) => err instanceof ObjectLostError && /the result of task made, was held by worker/.test(err.message));
          return;
        }
        // A task's get finds the holder gone and asks the owner, which runs the task again; the driver reads the new value.
        const read = await ctx.get(ctx.run(readMade, { ref }, N, 5));
        assert.ok(read.exact && read.pid !== first.pid, "the task read the value made anew");
        const again = await ctx.get(ref);
        assert.notEqual(again.pid, first.pid, "made anew elsewhere");
        assert.equal(again.data.length, N);
        assert.ok(again.data.every((x) => x === 5));
        return;
      }
      assert.fail("the nested task never ran on the other worker");
    });
}

for (const [kind, make] of heldBackends)
  it(`both returns of a nested task, lost with their holder, are made anew by one run (${kind})`, async () => {
    await using ctx = make(2);
    await ctx.get([ctx.run(where), ctx.run(where)]); // both workers are up
    for (let tries = 0; tries < 30; tries++) {
      const { refs, pid: parent } = await ctx.get(ctx.run(runPairMade, N, 2, 1));
      const first = await ctx.get(refs[0]);
      if (first.pid === parent) continue;
      process.kill(first.pid, "SIGKILL");
      const [a, b] = [await ctx.get(refs[0]), await ctx.get(refs[1])];
      assert.ok(a.pid !== first.pid && a.pid === b.pid, "both made anew by the same run elsewhere");
      assert.ok(a.data.every((x) => x === 2) && b.data.every((x) => x === 3) && b.data.length === N);
      return;
    }
    assert.fail("the nested task never ran on the other worker");
  });

it("a task given a nested task's large value runs on the worker holding it when that worker is free (processes)", async () => {
  await using ctx = createJobContext("processes", { maxWorkers: 2 });
  let rounds = 0;
  for (let tries = 0; tries < 40 && rounds < 4; tries++) {
    const { holder, reader, parent } = await ctx.get(ctx.run(runNear, N));
    if (holder === parent) continue; // its holder is where the parent waits: no test of where the reader goes
    assert.equal(reader, holder, "the reader ran where the value is");
    rounds++;
  }
  assert.equal(rounds, 4, "the nested task ran on the other worker often enough");
});
