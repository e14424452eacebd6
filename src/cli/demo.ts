// `fray demo`: spawn worker processes, spread a Monte Carlo estimate of π over
// them, then pass a token around a ring of actors that call each other directly.
import { Channel, thisHost } from "../mesh.ts";
import { PiSampler, RingNode } from "./demo-actors.ts";
import { Progress } from "./progress.ts";

/** Sampling rounds: each rank's share is sampled in this many calls, for progress. */
const ROUNDS = 10;

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
  // In rounds, each rank's answer streamed as it arrives, so the bar moves while they work.
  const perCall = Math.ceil(samples / n / ROUNDS);
  const progress = new Progress("sampling", ROUNDS * n, "chunks");
  const total = { inside: 0, total: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    for await (const r of samplers.sample.stream(perCall)) {
      total.inside += r.inside;
      total.total += r.total;
      progress.step(`pid ${r.pid}`);
    }
  }
  progress.stop();
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
