// What the namespace's host offers its hosted actors (this machine's cores
// and memory), and what they hold: a request no actor could ever get fails,
// naming the resource, and so does one that does not fit now.
import { availableParallelism, totalmem } from "node:os";
import type { Resources } from "../base/options.ts";

export class HostCapacity {
  readonly offers: Readonly<Record<string, number>> = { cpu: availableParallelism(), memory: totalmem() };
  readonly #held: Record<string, number> = {};

  take(resources: Resources, what: string): void {
    for (const [name, amount] of Object.entries(resources)) {
      const offered = this.offers[name] ?? 0;
      if (amount > offered) {
        throw new RangeError(
          `${what} requests ${amount} of '${name}', but the namespace's host offers ${offered} (it has ${JSON.stringify(this.offers)}); ` +
            `actors with a name in a namespace, or with maxRestarts, lifetime or preemptible set, run there: ask for less`,
        );
      }
      if ((this.#held[name] ?? 0) + amount > offered) {
        throw new RangeError(
          `${what} requests ${amount} of '${name}', but the namespace's host has only ${offered - (this.#held[name] ?? 0)} free now; kill an ` +
            `actor that holds some, or ask for less`,
        );
      }
    }
    for (const [name, amount] of Object.entries(resources)) this.#held[name] = (this.#held[name] ?? 0) + amount;
  }

  give(resources: Resources): void {
    for (const [name, amount] of Object.entries(resources)) this.#held[name] = (this.#held[name] ?? 0) - amount;
  }
}
