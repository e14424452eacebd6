// Batch inference: label many product reviews with a CPU-bound model, one model
// replica per process, batches handed to whichever replica has the fewest in flight.
// Runs the whole set on one process, then on --procs processes, and compares.
//   npx tsx examples/batch-inference/main.ts [--records 50000] [--procs N] [--batch 500]
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { thisHost, type ActorMesh } from "fray/mesh";
import { LABELS } from "./model.js";
import { reviews } from "./reviews.js";
import { Scorer, type Scored } from "./scorer.js";

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "50000" },
    procs: { type: "string", default: String(availableParallelism()) },
    batch: { type: "string", default: "500" },
  },
});
const [records, procs, batchSize] = (["records", "procs", "batch"] as const).map((name) => {
  const n = Number(values[name]);
  if (!(Number.isInteger(n) && n > 0)) throw new RangeError(`--${name} must be a positive integer, got ${values[name]}`);
  return n;
});

const data = reviews(records);
const batches: string[][] = [];
for (let i = 0; i < data.length; i += batchSize) batches.push(data.slice(i, i + batchSize).map((r) => r.text));
const megabytes = data.reduce((n, r) => n + r.text.length, 0) / 1e6;
console.log(`${records} reviews (${megabytes.toFixed(1)} MB of text) in ${batches.length} batches of up to ${batchSize}`);

/** Scores every batch on `scorers`, keeping two batches in flight per replica; results in batch order. */
async function scoreAll(scorers: ActorMesh<Scorer>): Promise<Scored[]> {
  const results: Scored[] = new Array(batches.length);
  let next = 0;
  const lane = async () => {
    while (next < batches.length) {
      const i = next++;
      results[i] = await scorers.score.choose(batches[i]);
    }
  };
  await Promise.all(Array.from({ length: 2 * scorers.size }, lane));
  return results;
}

/** Starts `n` replicas (each loads the model), then times scoring the whole set on them. */
async function run(n: number): Promise<{ labels: number[]; confidence: number[]; perSecond: number }> {
  await using mesh = thisHost().spawnProcs({ replicas: n });
  const scorers = mesh.spawn("scorers", Scorer);
  await scorers.initialized;
  const t0 = performance.now();
  const scored = await scoreAll(scorers);
  const seconds = (performance.now() - t0) / 1000;
  const perSecond = records / seconds;
  console.log(`${String(n).padStart(2)} process${n === 1 ? "  " : "es"}: ${records} records in ${seconds.toFixed(2)} s, ${perSecond.toFixed(0)} records/s`);
  return { labels: scored.flatMap((s) => [...s.labels]), confidence: scored.flatMap((s) => [...s.confidence]), perSecond };
}

const one = await run(1);
const many = await run(procs);
console.log(`speed-up on ${procs} processes: ${(many.perSecond / one.perSecond).toFixed(2)}x one process`);

const counts = LABELS.map((_, l) => many.labels.filter((x) => x === l).length);
const correct = many.labels.filter((l, i) => l === data[i].sentiment).length;
const same = many.labels.every((l, i) => l === one.labels[i] && many.confidence[i] === one.confidence[i]);
console.log(`labels: ${LABELS.map((name, l) => `${name} ${counts[l]}`).join(", ")}; accuracy ${((100 * correct) / records).toFixed(1)}%`);
console.log(`same labels and confidences on 1 and ${procs} processes: ${same}`);
