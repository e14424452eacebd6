// The data-parallel training journey's rank (dp-training.ts): each rank holds the parameters, computes its
// gradient for a step from its rank and the step (integers, so every sum is exact in float32), averages it with
// its peers by allReduce, and applies it. A rank can be told to throw before its collective, as user code does.
import { Actor, collective, currentRank } from "../../src/mesh.ts";

export const PARAMS = 1 << 18;
/** The learning rate: a power of two, so every update is exact. */
export const RATE = 2 ** -10;

/** Rank `rank`'s gradient at `step`. */
export function gradient(rank: number, step: number, length: number): Float32Array {
  const g = new Float32Array(length);
  for (let i = 0; i < length; i++) g[i] = (rank + 1) * (step + 1) + (i % 7);
  return g;
}

export class DataParallelRank extends Actor {
  #params = new Float32Array(PARAMS);

  /** One training step; `failingRank` throws before its collective (a bad batch, say). */
  async step(step: number, failingRank: number): Promise<number> {
    const { rank } = currentRank();
    if (rank === failingRank) throw new RangeError(`rank ${rank} found a bad batch at step ${step}`);
    const grad = gradient(rank, step, PARAMS);
    await collective.allReduce(grad, { op: "sum" });
    for (let i = 0; i < PARAMS; i++) this.#params[i] -= grad[i] * RATE;
    return step;
  }

  params(): Float32Array {
    return this.#params;
  }

  load(params: Float32Array): void {
    this.#params = params;
  }

  pid(): number {
    return process.pid;
  }
}
