// What the held-value suites share (held-results.test.ts, object-borrowers.test.ts, object-spill.test.ts,
// held-in-shm.test.ts, put-owner.test.ts, nested-owner.test.ts): the backends whose workers hold large values (and
// those whose workers own refs), a value size well above the inline threshold, the test process's garbage collector
// (and its worker's), settings given to the workers a body starts, and a count of the head's calls.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { thisHost } from "../../src/mesh.ts";
import { HeadActor } from "../../src/job/head/head-actor.ts";
import { track } from "../helpers.ts";

setFlagsFromString("--expose-gc");
/** This process's garbage collector (finalizers, and so ref drops, run after a collection). */
export const gc = runInNewContext("gc") as () => void;

/**
 * Collects the driver's garbage, and the worker's (`ctx`'s single worker, by its task `collect`, which calls gc()),
 * until `done()` (finalizers, and so ref drops, run after a collection).
 */
export async function collectUntil(ctx: JobContext, collect: () => void, done: () => boolean | Promise<boolean>): Promise<boolean> {
  for (let round = 0; round < 100; round++) {
    if (await done()) return true;
    gc();
    await ctx.get(ctx.run(collect));
    await new Promise((r) => setImmediate(r));
  }
  return done();
}

/** 1 MiB of doubles: far above the default inline threshold (100 KiB). */
export const N = 131_072;

/** The backends whose workers keep large values, each making a job of `workers` workers. */
export const heldBackends: Array<[string, (workers: number) => JobContext]> = [
  ["processes", (workers) => createJobContext("processes", { maxWorkers: workers })],
  ["mesh", (workers) => createJobContext("mesh", { procs: track(thisHost().spawnProcs({ workers })) })],
];

/** The backends whose workers own refs (their puts and nested tasks): those above, and `threads`. */
export const ownerBackends: Array<[string, (workers: number) => JobContext]> = [
  ...heldBackends,
  ["threads", (workers) => createJobContext("threads", { maxWorkers: workers })],
];

/** Runs `body` with the given settings in the environment (which workers started meanwhile inherit), then restores it. */
export async function withSettings<T>(settings: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(settings).map((k) => [k, process.env[k]]));
  Object.assign(process.env, settings);
  try {
    return await body();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Calls of each of the head's endpoints `names` while `body` runs (the head runs in this, the driver's, process). */
export async function headCalls(names: Array<keyof HeadActor>, body: () => Promise<void>): Promise<number> {
  const proto = HeadActor.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const saved = names.map((name) => [name, proto[name]] as const);
  let calls = 0;
  for (const [name, fn] of saved)
    proto[name] = function (this: unknown, ...args: unknown[]) {
      calls++;
      return fn.apply(this, args);
    };
  try {
    await body();
  } finally {
    for (const [name, fn] of saved) proto[name] = fn;
  }
  return calls;
}
