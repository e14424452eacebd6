// Accumulator: call an endpoint on every rank and fold the replies as they arrive.
import type { Endpoint } from "./endpoint.ts";

export class Accumulator<A extends unknown[], R, U> {
  readonly #fresh: () => U;

  /**
   * `identity` is where each `accumulate()` starts: a value, copied with
   * structuredClone for every accumulation (so a `combine` that mutates its
   * accumulator does not carry state into the next one), or a factory
   * `() => identity` for values structuredClone cannot copy (class instances).
   */
  constructor(
    private readonly endpoint: Endpoint<A, R>,
    identity: U | (() => U),
    private readonly combine: (acc: U, value: R) => U,
  ) {
    this.#fresh = typeof identity === "function" ? (identity as () => U) : copier(identity);
  }

  async accumulate(...args: A): Promise<U> {
    let acc = this.#fresh();
    for await (const value of this.endpoint.stream(...args)) acc = this.combine(acc, value);
    return acc;
  }
}

/** Copies `identity` for each accumulation; refuses what a copy would change. */
function copier<U>(identity: U): () => U {
  if (identity === null || typeof identity !== "object") return () => identity;
  let copy: U;
  try {
    copy = structuredClone(identity);
  } catch (err) {
    throw new TypeError(
      `Accumulator cannot copy its identity for each accumulate() (${(err as Error).message}); pass a factory instead: new ` +
        `Accumulator(endpoint, () => identity, combine)`,
      { cause: err },
    );
  }
  if (Object.getPrototypeOf(copy) !== Object.getPrototypeOf(identity)) {
    const name = (identity as object).constructor?.name ?? "object";
    throw new TypeError(
      `Accumulator cannot copy its identity, a ${name}, for each accumulate() (a copy would lose its class); pass a factory instead: new ` +
        `Accumulator(endpoint, () => new ${name}(…), combine)`,
    );
  }
  return () => structuredClone(identity);
}
