// Zephyr-style data processing: map → shuffle by key → reduce over files, the same
// code on every backend.
//   npx tsx examples/data-pipeline/main.ts [sync|threads|processes] [files] [rows per file]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createJobContext, type JobKind, type ObjectRef } from "fray";
import { mapFile, reducePartition, writeInput, type Rates, type Totals } from "./stages.js";

const kind = (process.argv[2] ?? "processes") as JobKind;
const files = Number(process.argv[3] ?? 24);
const rows = Number(process.argv[4] ?? 50_000);
const PARTITIONS = 4;

const dir = mkdtempSync(join(tmpdir(), "fray-pipeline-"));
await using ctx = createJobContext(kind, { maxWorkers: 4 });
try {
  const t0 = performance.now();
  const inputs = await ctx.get(Array.from({ length: files }, (_, i) => ctx.run(writeInput, dir, i, rows)));

  // Shared data: stored once with put; every map task gets the ref and sees the value.
  const rates: ObjectRef<Rates> = ctx.put({ emea: 1, amer: 0.92, apac: 0.0061 });

  // Map: one task per file, returning its output split into PARTITIONS by product: with numReturns, each partition is
  // a ref of its own, kept by the worker that made it (when large) until a reducer reads it. asCompleted hands back
  // each task (its first partition) as it finishes, for the progress line.
  const mapped = inputs.map((file) => ctx.createTask(mapFile, [file, rates, PARTITIONS], { numReturns: PARTITIONS }));
  let done = 0;
  for await (const _ of ctx.asCompleted(mapped.map((partitions) => partitions[0]))) {
    done++;
    if (done % Math.max(1, Math.floor(files / 4)) === 0 || done === files) process.stderr.write(`map ${done}/${files}\n`);
  }

  // Shuffle by key: reducer p takes partition p of every map task. Only refs pass through here: each reducer reads its
  // partitions from the workers that hold them, and the driver gets the reducers' small totals alone.
  const reduced = Array.from({ length: PARTITIONS }, (_, p) => ctx.run(reducePartition, ...mapped.map((partitions) => partitions[p])));
  const totals: Totals = Object.assign({}, ...(await ctx.get(reduced)));

  const top = Object.entries(totals).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const euros = Math.round(top.reduce((sum, [, v]) => sum + v, 0) * 100) / 100;
  console.log(JSON.stringify({ kind, files, rows: files * rows, products: top.length, euros, top: top.slice(0, 3) }));
  console.error(`${kind}: ${files * rows} rows in ${(performance.now() - t0).toFixed(0)} ms`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
