// Tasks for held-results.test.ts: a large result, readers of it in other tasks, and a probe of what a worker holds.
import { writeFileSync } from "node:fs";
import { getJobContext, type ObjectRef } from "../../src/job.ts";
import { BUFFERS } from "../../src/runtime/face/buffers.ts";
import { currentProc } from "../../src/runtime/face/procs.ts";

/** A result well above the inline threshold: `n` doubles, each `fill`. */
export function bigResult(n: number, fill: number): Float64Array {
  return new Float64Array(n).fill(fill);
}

/** As bigResult, writing the id of the process that makes it to `pidFile` first. */
export function bigResultTelling(n: number, fill: number, pidFile: string): Float64Array {
  writeFileSync(pidFile, String(process.pid));
  return bigResult(n, fill);
}

function sum(data: Float64Array): number {
  let total = 0;
  for (const x of data) total += x;
  return total;
}

/** Given the big value itself (its ref resolved before the call): its sum, and where it was read. */
export function sumOf(big: Float64Array): { pid: number; sum: number } {
  return { pid: process.pid, sum: sum(big) };
}

/** Given the ref wrapped (so it is not resolved first): reads it with ctx.get inside the task. */
export async function sumByGet(wrapped: { ref: ObjectRef<Float64Array> }): Promise<{ pid: number; sum: number }> {
  const big = await getJobContext().get(wrapped.ref);
  return { pid: process.pid, sum: sum(big) };
}

/** The worker's process id. */
export function pidOf(): number {
  return process.pid;
}

/** How many values this worker holds for others to read (a probe of the runtime's buffer store). */
export function heldHere(): number {
  return currentProc().get(BUFFERS).size;
}
