// The actor of `fray demo`: one data-parallel trainer per worker process. Each
// makes its own shard of the synthetic set from the seed (nothing is sent),
// and every step averages the ranks' gradients with collective.allReduce, so
// every rank applies the same update and holds the same weights.
import { Actor, collective, currentRank } from "../../mesh.ts";
import { descend, gradient, makeRows, shardOf, batchOffset, weightCount, type Rows } from "./model.ts";

/** What a step reports: the mean loss over every rank's mini-batch (before the update), and the weights after it. */
export interface StepResult {
  loss: number;
  weights: Float64Array;
}

export class Trainer extends Actor {
  readonly #rows: Rows;
  readonly #weights = new Float64Array(weightCount);
  readonly #grad = new Float64Array(weightCount + 1);

  /** Rank r of `ranks` makes rows shardOf(rows, r, ranks) of the set `seed`. */
  constructor(seed: number, rows: number, ranks: number) {
    super();
    const { start, count } = shardOf(rows, currentRank().rank, ranks);
    this.#rows = makeRows(seed, start, count);
  }

  /** Step `step`: the gradient of this shard's mini-batch, averaged over the ranks, then one descent step. */
  async step(step: number, batch: number, learningRate: number): Promise<StepResult> {
    gradient(this.#rows, this.#weights, batchOffset(step, batch, this.#rows.count), batch, this.#grad);
    await collective.allReduce(this.#grad, { op: "avg" });
    descend(this.#weights, this.#grad, learningRate);
    return { loss: this.#grad[weightCount], weights: this.#weights };
  }

  /** This shard's gradient for step `step`, without reducing it (for a reduction by the caller: bench A3). */
  localGradient(step: number, batch: number): Float64Array {
    return gradient(this.#rows, this.#weights, batchOffset(step, batch, this.#rows.count), batch, this.#grad);
  }

  /** Puts weights in place: a respawned rank's resume point, or the update a caller reduced itself. */
  setWeights(weights: Float64Array): void {
    this.#weights.set(weights);
  }
}
