// The RL loop's jobs and their shared curriculum. The policy is a softmax over
// 8 arms of a bandit, held in a weight vector padded to the size of a real
// model's (so moving it costs what moving weights costs); the trainer publishes
// it each iteration as a RemoteBuffer its own process owns, and rollouts read it
// from there — the bytes never pass through the curriculum.
import { createJobContext } from "fray";
import { RemoteBuffer } from "fray/mesh";

export const ARMS = 8;
/** Arm i pays 1 with probability (i + 1) / 9: arm 7 is the best. */
const payout = (arm: number) => (arm + 1) / (ARMS + 1);

export interface Report {
  readonly rollout: number;
  readonly iteration: number;
  /** Per arm: how often it was pulled, and what it paid in total. */
  readonly pulls: number[];
  readonly paid: number[];
}

/** The shared curriculum (a named actor): the weights of each iteration, the rollouts' reports, and the level. */
export class Curriculum {
  readonly #weights = new Map<number, RemoteBuffer>();
  readonly #reports: Report[] = [];
  #wake: Array<() => void> = [];
  /** Episodes per rollout: the curriculum lengthens them as the policy gets good. */
  level = 0;

  publish(iteration: number, weights: RemoteBuffer): void {
    this.#weights.set(iteration, weights);
    this.#changed();
  }

  /** The weights of `iteration` (once published) and how many episodes to play with them. */
  async lesson(iteration: number): Promise<{ weights: RemoteBuffer; episodes: number }> {
    while (!this.#weights.has(iteration)) await this.#next();
    return { weights: this.#weights.get(iteration)!, episodes: 100 * (this.level + 1) };
  }

  report(report: Report): void {
    this.#reports.push(report);
    this.#changed();
  }

  /** The reports of `iteration` once all `rollouts` are in; moves up a level when the mean payout passes the next bar. */
  async results(iteration: number, rollouts: number): Promise<{ reports: Report[]; level: number }> {
    const of = () => this.#reports.filter((r) => r.iteration === iteration);
    while (of().length < rollouts) await this.#next();
    this.#weights.delete(iteration);
    const reports = of();
    const pulls = reports.reduce((n, r) => n + r.pulls.reduce((a, b) => a + b, 0), 0);
    const paid = reports.reduce((n, r) => n + r.paid.reduce((a, b) => a + b, 0), 0);
    if (this.level < 3 && paid / pulls > 0.6 + 0.08 * this.level) this.level++;
    return { reports, level: this.level };
  }

  #next(): Promise<void> {
    return new Promise((wake) => this.#wake.push(wake));
  }

  #changed(): void {
    const woken = this.#wake;
    this.#wake = [];
    for (const wake of woken) wake();
  }
}

const curriculum = (name: string) => ({ name, getIfExists: true, lifetime: "detached", maxConcurrency: 64 }) as const;

function softmax(prefs: Float32Array): number[] {
  const max = Math.max(...prefs.subarray(0, ARMS));
  const e = Array.from(prefs.subarray(0, ARMS), (p) => Math.exp(p - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

/** The trainer job: `iterations` rounds of publish → wait for every rollout → policy-gradient step. */
export async function trainer(name: string, rollouts: number, iterations: number, weightsMiB: number): Promise<void> {
  await using ctx = createJobContext("threads", { maxWorkers: 1 });
  const shared = await ctx.createActor(Curriculum, [], curriculum(name));
  const weights = new Float32Array((weightsMiB << 20) / 4); // the first ARMS entries are the policy
  for (let iteration = 0; iteration < iterations; iteration++) {
    const buffer = new RemoteBuffer(weights);
    await ctx.get(shared.publish.remote(iteration, buffer));
    const { reports, level } = await ctx.get(shared.results.remote(iteration, rollouts));
    await buffer.drop();
    // REINFORCE with the mean payout as baseline: the gradient for arm a is (paid_a − mean·pulls_a) / N.
    const pulls = Array.from({ length: ARMS }, (_, a) => reports.reduce((n, r) => n + r.pulls[a], 0));
    const paid = Array.from({ length: ARMS }, (_, a) => reports.reduce((n, r) => n + r.paid[a], 0));
    const n = pulls.reduce((a, b) => a + b, 0);
    const mean = paid.reduce((a, b) => a + b, 0) / n;
    for (let a = 0; a < ARMS; a++) weights[a] += (20 * (paid[a] - mean * pulls[a])) / n;
    const best = softmax(weights)[ARMS - 1];
    console.log(`iteration ${iteration}: mean payout ${mean.toFixed(3)}, P(best arm) ${best.toFixed(3)}, level ${level}, ${n} episodes`);
  }
}

/** A rollout job: each iteration reads the trainer's weights and plays the lesson's episodes with them. */
export async function rollout(name: string, index: number, iterations: number): Promise<void> {
  await using ctx = createJobContext("threads", { maxWorkers: 1 });
  const shared = await ctx.createActor(Curriculum, [], curriculum(name));
  let seed = 12345 + index * 1000;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  let local: Float32Array | null = null;
  for (let iteration = 0; iteration < iterations; iteration++) {
    const { weights, episodes } = await ctx.get(shared.lesson.remote(iteration));
    local ??= new Float32Array(weights.size / 4);
    await weights.readInto(local);
    const policy = softmax(local);
    const pulls = new Array<number>(ARMS).fill(0);
    const paid = new Array<number>(ARMS).fill(0);
    for (let e = 0; e < episodes; e++) {
      let arm = 0;
      for (let u = random(); arm < ARMS - 1 && u > policy[arm]; arm++) u -= policy[arm];
      pulls[arm]++;
      if (random() < payout(arm)) paid[arm]++;
    }
    await ctx.get(shared.report.remote({ rollout: index, iteration, pulls, paid }));
  }
}
