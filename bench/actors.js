// Actors the benchmarks drive, written as a user of the compiled package would.
import { Actor, thisHost } from "../dist/mesh.js";

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

/** Owns a mesh of Echo actors in worker processes and reports each failure it supervises, with the time it saw it. */
export class Owner extends Actor {
  constructor(report) {
    super();
    this.report = report;
  }
  async start(n) {
    this.procs = thisHost().spawnProcs({ procs: n });
    this.mesh = this.procs.spawn("owned", Hanger);
    await this.mesh.initialized;
    return { mesh: this.mesh, pids: this.procs.pids };
  }
  supervise(failure) {
    this.report.send({ at: performance.timeOrigin + performance.now(), cause: failure.cause.message });
    return true;
  }
  async stopProcs() {
    await this.procs.stop();
  }
}

export class Hanger extends Actor {
  static endpoints = { hang: { concurrent: true } };
  hang() {
    return new Promise(() => {});
  }
}
