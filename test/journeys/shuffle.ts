// Journey 3, data processing: map → shuffle by key → reduce over generated files, as a user writes it (as
// examples/data-pipeline does: each map task returns its partitions with numReturns; the reducers take their refs,
// and the driver never reads a partition). Exact totals against the same computation in one process; every task
// may be retried, and a partition lost with its worker is made again by its map task, so a worker killed under it
// (the chaos run) changes nothing in the answer.
//   node --import tsx test/journeys/shuffle.ts threads|processes|mesh
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { journeyKind, openJob, reportJourney } from "./journey.ts";
import { mapFile, reducePartition, rows, writeInput } from "./shuffle-tasks.ts";

const FILES = 24;
const ROWS = 20_000;
const PARTITIONS = 10;
const retry = { maxRetries: 3 };

const kind = journeyKind();
const dir = mkdtempSync(join(tmpdir(), "fray-journey-shuffle-"));
const { ctx, close } = await openJob(kind, 2);
try {
  const paths = await ctx.get(Array.from({ length: FILES }, (_, f) => ctx.createTask(writeInput, [dir, f, ROWS], retry)));
  const pieces = paths.map((path) => ctx.createTask(mapFile, [path, PARTITIONS], { ...retry, numReturns: PARTITIONS }));
  const partitions = Array.from({ length: PARTITIONS }, (_, p) => pieces.map((file) => file[p]));
  const reduced = await ctx.get(partitions.map((refs) => ctx.createTask(reducePartition, refs, retry)));

  const expected = new Map<number, number>();
  for (let f = 0; f < FILES; f++) for (const [key, value] of rows(f, ROWS)) expected.set(key, (expected.get(key) ?? 0) + value);
  const got = new Map<number, number>();
  for (const [p, part] of reduced.entries()) {
    for (const [key, sum] of part) {
      assert.equal(key % PARTITIONS, p, `key ${key} reduced in partition ${p}`);
      assert.ok(!got.has(key), `key ${key} reduced twice`);
      got.set(key, sum);
    }
  }
  assert.deepEqual(new Map([...got].sort((a, b) => a[0] - b[0])), new Map([...expected].sort((a, b) => a[0] - b[0])));
  reportJourney("shuffle", kind, { files: FILES, rows: FILES * ROWS, keys: got.size, total: [...got.values()].reduce((a, b) => a + b, 0) });
} finally {
  await close();
  rmSync(dir, { recursive: true, force: true });
}
