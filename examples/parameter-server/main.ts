// A parameter server: one server actor holds a linear layer's weights; worker actors,
// each with its own shard of the data, pull the weights by RemoteBuffer, compute a
// gradient, and push it back by RemoteBuffer; the server applies the average.
//   npx tsx examples/parameter-server/main.ts [--workers 4] [--inputs 256] [--outputs 256] [--rows 1024] [--steps 20] [--learning-rate 0.1]
import { parseArgs } from "node:util";
import { thisHost } from "fray/mesh";
import { ParameterServer, Worker } from "./actors.js";

const { values } = parseArgs({
  options: {
    workers: { type: "string", default: "4" },
    inputs: { type: "string", default: "256" },
    outputs: { type: "string", default: "256" },
    rows: { type: "string", default: "1024" },
    steps: { type: "string", default: "20" },
    "learning-rate": { type: "string", default: "0.1" },
  },
});
const number = (name: keyof typeof values) => {
  const n = Number(values[name]);
  if (!(n > 0)) throw new RangeError(`--${name} must be a positive number, got ${values[name]}`);
  return n;
};
const [workers, inputs, outputs, rows, steps, learningRate] = (["workers", "inputs", "outputs", "rows", "steps", "learning-rate"] as const).map(number);

const serverProcs = thisHost().spawnProcs({ servers: 1 }, { name: "server" });
const workerProcs = thisHost().spawnProcs({ workers }, { name: "workers" });
const server = serverProcs.spawn("server", ParameterServer, inputs, outputs, workers);
const team = workerProcs.spawn("workers", Worker, server, inputs, outputs, rows);
await team.initialized;

const kib = (inputs * outputs * 4) / 1024;
console.log(`${inputs * outputs} weights (${kib} KiB) on the server, ${workers} workers with ${rows} rows each`);
const t0 = performance.now();
const losses: number[] = [];
for (let step = 1; step <= steps; step++) {
  const perWorker = (await team.step.call()).values(); // every worker pulls, computes and pushes
  await server.update.callOne(learningRate); // the server applies the average gradient
  losses.push(perWorker.reduce((a, b) => a + b, 0) / perWorker.length);
  console.log(`step ${String(step).padStart(3)}  loss ${losses.at(-1)!.toFixed(4)}`);
}
const seconds = (performance.now() - t0) / 1000;
console.log(
  `loss ${losses[0].toFixed(4)} -> ${losses.at(-1)!.toFixed(4)} in ${steps} steps, ${seconds.toFixed(1)} s; ` +
    `each step moved ${2 * workers * kib} KiB by RemoteBuffer`,
);
await Promise.all([workerProcs.stop(), serverProcs.stop()]);
