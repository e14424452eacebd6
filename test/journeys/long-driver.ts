// Journey 6, a driver that lives for days: many short units of work — tasks, nested tasks, streams left early,
// actors created and killed, cancels, now and then a mesh made and stopped — a few ms apart, then everything it
// holds is back where it started: file descriptors, /dev/shm files, handles, the task bookkeeping, its heap
// (within a bound).
//   node --import tsx test/journeys/long-driver.ts threads|processes|mesh [units]
import assert from "node:assert/strict";
import { TaskCancelledError } from "../../src/job.ts";
import { thisHost, type ProcMesh } from "../../src/mesh.ts";
import { journeyKind, openJob, reportJourney } from "./journey.ts";
import { countUp, square, squareNested, StepRank, Tally, untilCancelled } from "./long-driver-tasks.ts";
import { resourceCounts } from "./resource-counts.ts";

const kind = journeyKind();
const UNITS = Number(process.argv[3] ?? 10_000);
const BATCH = 50;
const HEAP_GROWTH_MIB = 32;

const { ctx, close } = await openJob(kind, 2);
// Long-lived procs that actor meshes come and go on, as a training loop's steps do.
const trainers: ProcMesh = thisHost().spawnProcs({ workers: 2 });
const done = { tasks: 0, nested: 0, streamsLeft: 0, actors: 0, cancels: 0, meshes: 0 };

async function unit(i: number): Promise<void> {
  assert.equal(await ctx.get(ctx.run(square, i)), i * i);
  done.tasks++;
  if (i % 7 === 0) {
    assert.equal(await ctx.get(ctx.run(squareNested, i)), i * i);
    done.nested++;
  }
  if (i % 10 === 0) {
    let seen = 0;
    for await (const ref of ctx.runStreaming(countUp, 1_000)) {
      assert.equal(await ctx.get(ref), seen++);
      if (seen === 3) break; // "I have enough"
    }
    done.streamsLeft++;
  }
  if (i % 20 === 0) {
    const name = `tally-${i}`;
    const tally = await ctx.createActor(Tally, [], { name });
    assert.equal(await ctx.get(tally.add.remote(i)), i);
    await ctx.killActor(name);
    done.actors++;
  }
  if (i % 25 === 0) {
    const ref = ctx.run(untilCancelled);
    await ctx.cancel(ref);
    await assert.rejects(ctx.get(ref), TaskCancelledError);
    done.cancels++;
  }
  if (i % 500 === 0) {
    const ranks = trainers.spawn(`step-${i}`, StepRank);
    assert.deepEqual((await ranks.step.call(1 << 20, 2)).values(), [true, true]);
    await ranks.stop();
    done.meshes++;
  }
}

async function units(from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += BATCH) {
    await Promise.all(Array.from({ length: Math.min(BATCH, to - start) }, (_, k) => unit(start + k)));
  }
}

try {
  await units(0, 200); // warm: workers started, code loaded, caches filled
  const before = await resourceCounts();
  await units(200, UNITS);
  const afterRun = await resourceCounts();
  assert.deepEqual({ ...afterRun, heapMiB: 0 }, { ...before, heapMiB: 0 }, `what the driver holds after ${UNITS} units differs from before them`);
  assert.ok(afterRun.heapMiB - before.heapMiB < HEAP_GROWTH_MIB, `the heap grew from ${before.heapMiB} MiB to ${afterRun.heapMiB} MiB`);
  reportJourney("long-driver", kind, { units: UNITS, ...done, before, after: afterRun });
} finally {
  await trainers.stop();
  await close();
}
