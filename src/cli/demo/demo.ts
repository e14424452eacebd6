// `fray demo`: data-parallel training on a mesh of worker processes. Each rank
// makes its shard of a synthetic classification set, every step averages the
// ranks' gradients with collective.allReduce, and halfway one worker is killed
// with SIGKILL: the client, which owns the mesh, respawns that rank, hands it
// the last allreduced weights and training goes on. It ends with the held-out
// accuracy, the loss curve, and the speed-up over the same steps in one process.
import { availableParallelism, loadavg } from "node:os";
import { Channel, SupervisionError, setUnhandledFaultHook, thisHost, type MeshFailure } from "../../mesh.ts";
import { Trainer, type StepResult } from "./actors.ts";
import { accuracy, allShards, FEATURES, LABEL_NOISE, makeRows, shardOf, stepOverShards, weightCount } from "./model.ts";
import { Progress } from "../progress.ts";
import { textPlot } from "./text-plot.ts";

/** The demo fails unless the held-out accuracy reaches this (the best any model can do is 1 − LABEL_NOISE = 0.95). */
export const ACCURACY_THRESHOLD = 0.9;
const SEED = 7;
const LEARNING_RATE = 4;
/** Held-out rows (after the training rows) the accuracy is measured on. */
const HELD_OUT = 100_000;
/** The single-process comparison runs this fraction of the steps (at least one). */
const BASELINE_FRACTION = 0.25;

export interface DemoOptions {
  procs: number;
  rows: number;
  steps: number;
  /** Mini-batch rows per rank and step. */
  batch: number;
}

/** Why these options cannot make a demo, or null. */
export function demoOptionsProblem({ procs, rows, steps, batch }: DemoOptions): string | null {
  if (steps < 2) return `--steps ${steps} leaves no second half to resume after the kill: pass --steps 2 or more`;
  const smallest = shardOf(rows, procs - 1, procs).count;
  if (batch > smallest)
    return `--batch ${batch} is more than the ${smallest} rows a process holds (--rows ${rows} over --procs ${procs}): lower --batch or raise --rows`;
  return null;
}

export interface DemoResult {
  accuracy: number;
  losses: number[];
  speedup: number;
}

export async function runDemo(options: DemoOptions, log: (line: string) => void = console.log): Promise<DemoResult> {
  const problem = demoOptionsProblem(options);
  if (problem) throw new RangeError(problem);
  const { procs: n, rows, steps, batch } = options;
  const loadBefore = loadavg()[0];
  const killAt = Math.floor(steps / 2);
  const victim = n - 1;
  log(
    `training logistic regression (${FEATURES} features) data-parallel on ${rows.toLocaleString("en")} synthetic rows over ` +
      `${processes(n, "worker ")}, ${batch.toLocaleString("en")} rows per process and step; rank ${victim} is killed at step ${killAt}`,
  );

  const [failurePort, failures] = Channel.open<MeshFailure>();
  const previousHook = setUnhandledFaultHook((failure) => failurePort.send(failure));
  const t0 = performance.now();
  const procs = thisHost().spawnProcs({ workers: n });
  const pids = new Set(procs.pids);
  const losses: number[] = [];
  let weights: Float64Array = new Float64Array(weightCount);
  let trainMs = 0;
  try {
    const trainers = procs.spawn("trainers", Trainer, SEED, rows, n);
    await trainers.initialized;
    log(`started ${processes(n, "worker ")} (pids ${procs.pids.join(", ")}), each with its shard, in ${(performance.now() - t0).toFixed(0)} ms`);

    let progress = new Progress("training", steps, "steps");
    let killed = false;
    for (let step = 0; step < steps;) {
      if (step === killAt && !killed) {
        killed = true;
        progress.stop();
        const pid = procs.pids[victim];
        process.kill(pid, "SIGKILL");
        log(`step ${step}: killed worker process ${pid} (rank ${victim}) with SIGKILL`);
      }
      const started = performance.now();
      let results: StepResult[];
      try {
        results = (await trainers.step.call(step, batch, LEARNING_RATE)).values();
      } catch (err) {
        if (!(err instanceof SupervisionError)) throw err;
        log(`step ${step} failed: ${err.message}`);
        const failure = await failures.recv();
        const t1 = performance.now();
        await trainers.respawn(failure.rank);
        await trainers.setWeights.call(weights);
        for (const pid of procs.pids) pids.add(pid);
        log(`the supervisor was told: ${failure.cause.message}`);
        log(
          `respawned rank ${failure.rank} as process ${procs.pids[failure.rank]} in ${(performance.now() - t1).toFixed(0)} ms; resuming at ` +
            `step ${step} from the weights allreduced at step ${step - 1}`,
        );
        progress = new Progress("training", steps, "steps", step);
        continue;
      }
      trainMs += performance.now() - started;
      weights = results[0].weights;
      losses.push(results[0].loss);
      step++;
      const rate = (losses.length * n * batch) / (trainMs / 1000);
      progress.step(`step ${step}, loss ${results[0].loss.toFixed(4)}, ${Math.round(rate).toLocaleString("en")} samples/s`);
    }
    progress.stop();
  } finally {
    await procs.stop();
    setUnhandledFaultHook(previousHook);
    failures.close();
  }
  log(`stopped every worker process (pids ${[...pids].join(", ")})`);
  const parallelRate = (steps * n * batch) / (trainMs / 1000);

  const test = makeRows(SEED, rows, HELD_OUT);
  const acc = accuracy(test, weights);
  log(`loss per step (mean log-loss of the step's mini-batches):\n${textPlot(losses)}`);
  log(
    `held-out accuracy ${(acc * 100).toFixed(2)}% on ${HELD_OUT.toLocaleString("en")} rows (threshold ${ACCURACY_THRESHOLD * 100}%, at best ` +
      `${(100 - LABEL_NOISE * 100).toFixed(0)}%: ${LABEL_NOISE * 100}% of labels are noise)`,
  );

  const baselineSteps = Math.max(1, Math.round(steps * BASELINE_FRACTION));
  const baseline = trainInOneProcess(rows, n, batch, baselineSteps);
  const speedup = parallelRate / baseline.rate;
  log(
    `one process, the same ${baselineSteps} first steps (${n} × ${batch.toLocaleString("en")} rows each): loss at step ${baselineSteps} ` +
      `${baseline.loss.toFixed(6)} (${processes(n)}: ${losses[baselineSteps - 1].toFixed(6)})`,
  );
  log(
    `${processes(n)}: ${Math.round(parallelRate).toLocaleString("en")} samples/s; 1 process: ` +
      `${Math.round(baseline.rate).toLocaleString("en")} samples/s; speed-up ${speedup.toFixed(2)}× on ${processes(n)} ` +
      `(${availableParallelism()} cores; load average ${loadBefore.toFixed(1)} when the demo started)`,
  );
  if (acc < ACCURACY_THRESHOLD) throw new Error(`held-out accuracy ${(acc * 100).toFixed(2)}% is below the threshold of ${ACCURACY_THRESHOLD * 100}%`);
  return { accuracy: acc, losses, speedup };
}

const processes = (n: number, kind = "") => `${n} ${kind}${n === 1 ? "process" : "processes"}`;

/** The same training in this process: the n shards, each step's n mini-batch gradients averaged. */
function trainInOneProcess(rows: number, n: number, batch: number, steps: number): { rate: number; loss: number } {
  const shards = allShards(SEED, rows, n);
  const weights = new Float64Array(weightCount);
  let loss = 0;
  const t0 = performance.now();
  for (let step = 0; step < steps; step++) loss = stepOverShards(shards, weights, step, batch, LEARNING_RATE);
  return { rate: (steps * n * batch) / ((performance.now() - t0) / 1000), loss };
}
