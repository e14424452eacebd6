// What the held-value suites share (held-results.test.ts, object-borrowers.test.ts): the backends whose workers hold
// large values, a value size well above the inline threshold, and the test process's garbage collector.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { thisHost } from "../../src/mesh.ts";
import { track } from "../helpers.ts";

setFlagsFromString("--expose-gc");
/** This process's garbage collector (finalizers, and so ref drops, run after a collection). */
export const gc = runInNewContext("gc") as () => void;

/** 1 MiB of doubles: far above the default inline threshold (100 KiB). */
export const N = 131_072;

/** The backends whose workers keep large values, each making a job of `workers` workers. */
export const heldBackends: Array<[string, (workers: number) => JobContext]> = [
  ["processes", (workers) => createJobContext("processes", { maxWorkers: workers })],
  ["mesh", (workers) => createJobContext("mesh", { procs: track(thisHost().spawnProcs({ workers })) })],
];
