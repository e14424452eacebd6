// Tasks for object-spill.test.ts and object-locality.test.ts: large results (and puts) that say where they were
// made, and readers that say where they ran.
import { getJobContext, type ObjectRef } from "../../src/job.ts";

/** A result well above the inline threshold: `n` doubles, each `fill`, with the id of the process that made it. */
export function bigFrom(n: number, fill: number): { pid: number; data: Float64Array } {
  return { pid: process.pid, data: new Float64Array(n).fill(fill) };
}

/** Given a big value itself: where it was read, and whether each of its doubles is `fill`. */
export function checkFill(big: { data: Float64Array }, fill: number): { pid: number; exact: boolean; length: number } {
  return { pid: process.pid, exact: big.data.every((x) => x === fill), length: big.data.length };
}

/** Given any arguments: the id of the process it ran in. */
export function pidOf(..._args: unknown[]): number {
  return process.pid;
}

/** Waits until `path` exists (made by `makeFile`), polling; throws after `ms` milliseconds without it. */
export async function waitForFile(path: string, ms: number): Promise<string> {
  const { existsSync } = await import("node:fs");
  for (const deadline = Date.now() + ms; !existsSync(path);) {
    if (Date.now() > deadline) throw new Error(`${path} was not made within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return "seen";
}

/** Makes the file `path` (waitForFile's signal). */
export async function makeFile(path: string): Promise<void> {
  const { writeFileSync } = await import("node:fs");
  writeFileSync(path, "");
}

/** As bigFrom, after `ms` milliseconds of work (a map task of a shuffle). */
export function bigAfterWork(n: number, fill: number, ms: number): { pid: number; data: Float64Array } {
  for (const end = Date.now() + ms; Date.now() < end;);
  return bigFrom(n, fill);
}

/** As bigFrom, but the value is put by the task (its worker owns and holds it) and its ref returned. */
export function putBigFrom(n: number, fill: number): { pid: number; ref: ObjectRef<{ pid: number; data: Float64Array }> } {
  return { pid: process.pid, ref: getJobContext().put(bigFrom(n, fill)) };
}
