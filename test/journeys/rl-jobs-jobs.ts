// The RL journey's jobs (rl-jobs.ts): a trainer and rollouts, separate cluster jobs, meeting at a curriculum
// the driver hosts. The trainer publishes its weights each iteration as a RemoteBuffer its own process owns;
// rollouts read them from there. Each job computes in a worker process of its own (its play, its learning
// step), as tasks with retries: a worker killed under them (the chaos run) costs a retry, not the job. Play is
// seeded by rollout and iteration, so a retried play plays the same, and every sum is of integers, so the
// driver can replay the whole loop in one process (replay()) and expect the same reports, exactly.
import { createJobContext } from "../../src/job.ts";
import { RemoteBuffer } from "../../src/mesh.ts";

export const ARMS = 8;
/** Weights sent each iteration: the policy's ARMS floats, padded to a model's size. */
export const WEIGHT_FLOATS = 1 << 20;

export interface Report {
  readonly rollout: number;
  readonly iteration: number;
  readonly pulls: number[];
  readonly paid: number[];
}

/** A rollout lost its simulator: the error a crashing rollout job ends with. */
export class RolloutCrash extends Error {
  override name = "RolloutCrash";
}

/** The curriculum, hosted by the driver: each iteration's weights, and the rollouts' reports. */
export class Curriculum {
  readonly #weights = new Map<number, RemoteBuffer>();
  readonly reports: Report[] = [];
  #wake: Array<() => void> = [];

  publish(iteration: number, weights: RemoteBuffer): void {
    this.#weights.set(iteration, weights);
    this.#changed();
  }

  async lesson(iteration: number): Promise<RemoteBuffer> {
    while (!this.#weights.has(iteration)) await new Promise<void>((wake) => this.#wake.push(wake));
    return this.#weights.get(iteration)!;
  }

  report(report: Report): void {
    this.reports.push(report);
    this.#changed();
  }

  async results(iteration: number, rollouts: number): Promise<Report[]> {
    const of = () => this.reports.filter((r) => r.iteration === iteration);
    while (of().length < rollouts) await new Promise<void>((wake) => this.#wake.push(wake));
    this.#weights.delete(iteration);
    return of().sort((a, b) => a.rollout - b.rollout);
  }

  #changed(): void {
    for (const wake of this.#wake.splice(0)) wake();
  }
}

/** The policy: a softmax over the first ARMS weights. */
export function policyOf(weights: Float32Array): number[] {
  const prefs = Array.from(weights.subarray(0, ARMS));
  const max = Math.max(...prefs);
  const e = prefs.map((p) => Math.exp(p - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

/** One rollout's play of `episodes` episodes with `policy`, from its seeded generator `random`. */
export function play(rollout: number, iteration: number, policy: number[], random: () => number, episodes: number): Report {
  const pulls = new Array<number>(ARMS).fill(0);
  const paid = new Array<number>(ARMS).fill(0);
  for (let e = 0; e < episodes; e++) {
    let arm = 0;
    for (let u = random(); arm < ARMS - 1 && u > policy[arm]; arm++) u -= policy[arm];
    pulls[arm]++;
    if (random() < (arm + 1) / (ARMS + 1)) paid[arm]++;
  }
  return { rollout, iteration, pulls, paid };
}

/** The trainer's step as a task on its worker: the first ARMS weights, updated from an iteration's reports. */
export function learnStep(prefs: number[], reports: readonly Report[]): number[] {
  const weights = Float32Array.from(prefs);
  learn(weights, reports);
  return Array.from(weights);
}

/** A rollout's play of an iteration as a task on its worker: seeded by rollout and iteration, so a retry plays the same. */
export function playStep(rollout: number, iteration: number, policy: number[]): Report {
  return play(rollout, iteration, policy, seeded(rollout, iteration), EPISODES);
}

/** The trainer's step: a policy-gradient update of `weights` from an iteration's reports. */
export function learn(weights: Float32Array, reports: readonly Report[]): void {
  const pulls = Array.from({ length: ARMS }, (_, a) => reports.reduce((n, r) => n + r.pulls[a], 0));
  const paid = Array.from({ length: ARMS }, (_, a) => reports.reduce((n, r) => n + r.paid[a], 0));
  const n = pulls.reduce((a, b) => a + b, 0);
  const mean = paid.reduce((a, b) => a + b, 0) / n;
  for (let a = 0; a < ARMS; a++) weights[a] += (20 * (paid[a] - mean * pulls[a])) / n;
}

export function seeded(rollout: number, iteration: number): () => number {
  let seed = 12345 + rollout * 1000 + iteration * 7919;
  return () => (seed = (seed * 48271) % 2147483647) / 2147483647;
}

export const EPISODES = 200;
/** The curriculum's calls at once: rollouts wait in lesson() while the trainer publishes. */
export const CURRICULUM_CALLS = 16;
const curriculum = (name: string) => ({ name, getIfExists: true, maxConcurrency: CURRICULUM_CALLS }) as const;
/** A task whose worker is killed runs again, up to this many times. */
const retry = { maxRetries: 5 };

/** The trainer job. */
export async function trainer(name: string, rollouts: number, iterations: number): Promise<void> {
  await using ctx = createJobContext("processes", { maxWorkers: 1 });
  const shared = await ctx.createActor(Curriculum, [], curriculum(name));
  const weights = new Float32Array(WEIGHT_FLOATS);
  for (let iteration = 0; iteration < iterations; iteration++) {
    const buffer = new RemoteBuffer(weights);
    await ctx.get(shared.publish.remote(iteration, buffer));
    const reports = await ctx.get(shared.results.remote(iteration, rollouts));
    weights.set(await ctx.get(ctx.createTask(learnStep, [Array.from(weights.subarray(0, ARMS)), reports], retry)));
    await buffer.drop();
  }
}

/** A rollout job; `crashAt` ≥ 0: it crashes at that iteration, before it reports. */
export async function rollout(name: string, index: number, iterations: number, crashAt: number): Promise<void> {
  await using ctx = createJobContext("processes", { maxWorkers: 1 });
  const shared = await ctx.createActor(Curriculum, [], curriculum(name));
  const local = new Float32Array(WEIGHT_FLOATS);
  for (let iteration = 0; iteration < iterations; iteration++) {
    const weights = await ctx.get(shared.lesson.remote(iteration));
    await weights.readInto(local);
    if (iteration === crashAt) throw new RolloutCrash(`rollout ${index} lost its simulator at iteration ${iteration}`);
    const report = await ctx.get(ctx.createTask(playStep, [index, iteration, policyOf(local)], retry));
    await ctx.get(shared.report.remote(report));
  }
}

/** The same loop in one process: every report of `iterations` iterations. */
export function replay(rollouts: number, iterations: number): Report[] {
  const weights = new Float32Array(ARMS);
  const all: Report[] = [];
  for (let iteration = 0; iteration < iterations; iteration++) {
    const reports = Array.from({ length: rollouts }, (_, r) => play(r, iteration, policyOf(weights), seeded(r, iteration), EPISODES));
    all.push(...reports);
    learn(weights, reports);
  }
  return all;
}
