// A3: the training step of `fray demo` (logistic regression, 32 features; 65,536 rows per process
// and step as in the demo, and 16,384): samples/s on 4 worker processes with collective.allReduce of the gradients, against the
// same steps in one process (parallel efficiency), and against the same step with the gradients
// reduced in the client by an Accumulator and the weights broadcast back. The three alternate in
// blocks, and each reports its median block, so a machine busy with something else skews them alike.
import { availableParallelism } from "node:os";
import { Accumulator, thisHost } from "../../dist/mesh.js";
import { Trainer } from "../../dist/cli/demo/actors.js";
import { Collectives } from "../fixtures/collective-actors.js";
import { allShards, descend, stepOverShards, weightCount } from "../../dist/cli/demo/model.js";
import { quick, report, want } from "../lib/group.js";
import { median } from "../lib/stats.js";

if (want("A3"))
  for (const batch of [65_536, 16_384]) {
    const n = 4;
    const rows = 1_000_000;
    const seed = 7;
    const lr = 4;
    const blocks = quick ? 3 : 7;
    const stepsPerBlock = Math.round(((quick ? 5 : 20) * 16_384) / batch) || 1;
    const samples = stepsPerBlock * n * batch;
    const rate = (ms) => samples / (ms / 1000);

    // One process: the n shards here, each step's n mini-batch gradients averaged.
    const shards = allShards(seed, rows, n);
    const localWeights = new Float64Array(weightCount);
    let localStep = 0;
    const oneProcessBlock = () => {
      const t0 = performance.now();
      for (let s = 0; s < stepsPerBlock; s++) stepOverShards(shards, localWeights, localStep++, batch, lr);
      return performance.now() - t0;
    };

    const procs = thisHost().spawnProcs({ workers: n });
    try {
      const trainers = procs.spawn("trainers", Trainer, seed, rows, n);
      await trainers.initialized;
      let step = 0;
      const allReduceBlock = async () => {
        const t0 = performance.now();
        for (let s = 0; s < stepsPerBlock; s++) await trainers.step.call(step++, batch, lr);
        return performance.now() - t0;
      };
      // The Accumulator path: each rank returns its gradient, the client sums them, steps and broadcasts the weights.
      const sum = new Accumulator(
        trainers.localGradient,
        () => new Float64Array(weightCount + 1),
        (acc, g) => {
          for (let j = 0; j <= weightCount; j++) acc[j] += g[j];
          return acc;
        },
      );
      const weights = new Float64Array(weightCount);
      const accumulatorBlock = async () => {
        const t0 = performance.now();
        for (let s = 0; s < stepsPerBlock; s++) {
          const total = await sum.accumulate(step++, batch);
          for (let j = 0; j <= weightCount; j++) total[j] /= n;
          descend(weights, total, lr);
          trainers.setWeights.broadcast(weights); // runs before the next step's call: calls from here run in order
        }
        return performance.now() - t0;
      };
      await allReduceBlock(); // warm up: connections, JIT
      await accumulatorBlock();
      oneProcessBlock();
      const times = { one: [], allReduce: [], accumulator: [] };
      for (let b = 0; b < blocks; b++) {
        times.one.push(oneProcessBlock());
        times.allReduce.push(await allReduceBlock());
        times.accumulator.push(await accumulatorBlock());
      }
      // Which path the gradients' allReduce took: what the trainers' processes sent, by path.
      const stats = (await procs.spawn("paths", Collectives).pathStats.call()).values();
      const sent = {};
      for (const st of stats) for (const [p, { pieces }] of Object.entries(st)) sent[p] = (sent[p] ?? 0) + pieces;
      const paths = Object.entries(sent)
        .filter(([, k]) => k > 0)
        .map(([p, k]) => `${p} ${k.toLocaleString("en")} pieces`)
        .join(", ");
      const one = rate(median(times.one));
      const ours = rate(median(times.allReduce));
      const acc = rate(median(times.accumulator));
      const fmt = (r) => Math.round(r).toLocaleString("en");
      const speedup = ours / one;
      report(
        "A3",
        `demo training step, ${n} processes, gradients by collective.allReduce (${n} × ${batch.toLocaleString("en")} rows a step, median of ` +
          `${blocks} blocks of ${stepsPerBlock} steps; ${(weightCount + 1) * 8}-byte gradients; pieces the ranks sent, by path: ${paths})`,
        fmt(ours),
        "samples/s",
        `1 process ${fmt(one)} samples/s`,
        `${speedup.toFixed(2)}× (parallel efficiency ${((speedup / n) * 100).toFixed(0)}% of ${n}, ` +
          `${((speedup / Math.min(n, availableParallelism())) * 100).toFixed(0)}% of ${Math.min(n, availableParallelism())} cores)`,
        "(no goal)",
        null,
      );
      report(
        "A3",
        `the same step with an Accumulator: gradients summed in the client, weights broadcast back`,
        fmt(acc),
        "samples/s",
        `allReduce ${fmt(ours)} samples/s`,
        `${(ours / acc).toFixed(2)}× for allReduce`,
        "(no goal)",
        null,
      );
    } finally {
      await procs.stop();
    }
  }
