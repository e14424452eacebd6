// Actors the benchmarks drive, written as a user of the compiled package would.
import { Actor } from "../dist/mesh.js";

export class Echo extends Actor {
  ping() {
    return 1;
  }
}

export class Sink extends Actor {
  received = 0;
  recv(_i) {
    this.received++;
  }
  count() {
    return this.received;
  }
}

export class Idle extends Actor {}

export class MemoryProbe extends Actor {
  /** Heap in use after a full collection (the bench runs with --expose-gc, which workers inherit). */
  heap() {
    globalThis.gc?.();
    globalThis.gc?.();
    return process.memoryUsage().heapUsed;
  }
}
