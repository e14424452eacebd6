// `fray demo`: spawn worker processes, spread a Monte Carlo estimate of π over
// them, then pass a token around a ring of actors that call each other directly.
import { Accumulator, Channel, thisHost } from "../mesh.ts";
import { PiSampler, RingNode } from "./demo-actors.ts";

export interface DemoOptions {
  procs: number;
  samples: number;
}

export async function runDemo({ procs: n, samples }: DemoOptions, log: (line: string) => void = console.log): Promise<number> {
  const t0 = performance.now();
  const procs = thisHost().spawnProcs({ nodes: n });
  const samplers = procs.spawn("pi", PiSampler, 42);
  await samplers.initialized;
  log(`started ${n} worker processes (pids ${procs.pids.join(", ")}) in ${(performance.now() - t0).toFixed(0)} ms`);

  const t1 = performance.now();
  const perRank = Math.ceil(samples / n);
  const total = await new Accumulator(samplers.sample, { inside: 0, total: 0 }, (acc, r) => ({ inside: acc.inside + r.inside, total: acc.total + r.total })).accumulate(perRank);
  const pi = (4 * total.inside) / total.total;
  log(`π ≈ ${pi.toFixed(5)} from ${total.total.toLocaleString("en")} samples over ${n} processes in ${(performance.now() - t1).toFixed(0)} ms`);

  const ring = procs.spawn("ring", RingNode);
  await ring.initialized; // the token is fire-and-forget: make sure every node is there to pass it on
  const t2 = performance.now();
  const [done, finished] = Channel.open<number>();
  ring.slice({ nodes: 0 }).pass.broadcast(ring, n * 250, done);
  const hops = await finished.recv();
  finished.close();
  const ms = performance.now() - t2;
  log(`a token made ${hops} actor-to-actor hops around a ring of ${n} processes in ${ms.toFixed(0)} ms (${((ms * 1000) / hops).toFixed(0)} µs a hop)`);

  await procs.stop();
  log("stopped every worker process");
  return pi;
}
