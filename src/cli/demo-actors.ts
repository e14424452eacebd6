// Actors for `fray demo`: a Monte Carlo estimate of π spread over processes,
// and a ring where each actor forwards a token to its neighbour directly.
import { Actor, currentRank, type ActorMesh, type Port } from "../mesh.ts";

export class PiSampler extends Actor {
  #state: number;

  constructor(seed: number) {
    super();
    this.#state = (seed + currentRank().rank * 7919) >>> 0 || 1;
  }

  /** Counts how many of `n` random points in the unit square fall in the quarter circle. */
  sample(n: number): { inside: number; total: number; pid: number } {
    let inside = 0;
    for (let i = 0; i < n; i++) {
      const x = this.#next();
      const y = this.#next();
      if (x * x + y * y <= 1) inside++;
    }
    return { inside, total: n, pid: process.pid };
  }

  // xorshift32: deterministic per rank, so runs are reproducible.
  #next(): number {
    let s = this.#state;
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    this.#state = s >>> 0;
    return this.#state / 0x100000000;
  }
}

export class RingNode extends Actor {
  /**
   * Forwards the token to the next node of `ring`, process to process, until
   * `hops` is spent; the last node reports to `done`. Fire-and-forget, so no
   * actor waits on another (a waiting ring would deadlock: one message at a time).
   */
  pass(ring: ActorMesh<RingNode>, hops: number, done: Port<number>, made = 0): void {
    if (made === hops) {
      done.send(made);
      return;
    }
    const next = (currentRank().rank + 1) % ring.size;
    ring.slice({ nodes: next }).pass.broadcast(ring, hops, done, made + 1);
  }
}
