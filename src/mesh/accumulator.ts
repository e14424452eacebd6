// Accumulator: call an endpoint on every rank and fold the replies as they arrive.
import type { Endpoint } from "./endpoint.ts";

export class Accumulator<A extends unknown[], R, U> {
  constructor(
    private readonly endpoint: Endpoint<A, R>,
    private readonly identity: U,
    private readonly combine: (acc: U, value: R) => U,
  ) {}

  async accumulate(...args: A): Promise<U> {
    let acc = this.identity;
    for await (const value of this.endpoint.stream(...args)) acc = this.combine(acc, value);
    return acc;
  }
}
