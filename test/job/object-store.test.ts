// The object store releases values whose refs the driver dropped, so a long job
// does not grow without bound; refs that were sent elsewhere are kept.
import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { it } from "node:test";
import { createJobContext, type JobContext, type ObjectRef } from "../../src/job.ts";
import type { MeshJobContext } from "../../src/job/contexts/mesh-context.ts";
import type { SyncJobContext } from "../../src/job/contexts/sync-context.ts";
import { square } from "../fixtures/tasks.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Collects garbage until `count()` drops to `atMost` (finalizers run after a collection, asynchronously). */
async function collectUntil(count: () => number | Promise<number>, atMost: number): Promise<number> {
  let n = await count();
  for (let round = 0; round < 100 && n > atMost; round++) {
    gc();
    await new Promise((r) => setImmediate(r));
    n = await count();
  }
  return n;
}

/** 20 batches of 100 tasks; their refs are dropped when this returns. */
async function batches(ctx: JobContext): Promise<number> {
  let sum = 0;
  for (let batch = 0; batch < 20; batch++) {
    const refs: ObjectRef<number>[] = Array.from({ length: 100 }, (_, i) => ctx.run(square, i));
    sum += (await ctx.get(refs)).reduce((a, b) => a + b, 0);
  }
  return sum;
}

it("sync: values of dropped refs are released", async () => {
  const ctx = createJobContext("sync") as SyncJobContext;
  assert.equal(await batches(ctx), 20 * 328350);
  const kept = ctx.put("kept");
  assert.ok((await collectUntil(() => ctx.objectCount, 100)) <= 100);
  assert.equal(await ctx.get(kept), "kept");
});

it("processes: the head releases values of dropped refs", async () => {
  await using ctx = createJobContext("processes", { maxWorkers: 2 }) as MeshJobContext;
  assert.equal(await batches(ctx), 20 * 328350);
  assert.ok((await collectUntil(() => ctx.objectCount(), 100)) <= 100);
});

it("a value whose ref was dropped while its task ran still reaches the waiter", async () => {
  await using ctx = createJobContext("processes", { maxWorkers: 1 }) as MeshJobContext;
  // Only the promises are kept: the refs are garbage while the tasks are queued.
  const waiting = Array.from({ length: 50 }, (_, i) => ctx.get(ctx.run(square, i)));
  for (let round = 0; round < 5; round++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  assert.deepEqual(
    await Promise.all(waiting),
    Array.from({ length: 50 }, (_, i) => i * i),
  );
});
