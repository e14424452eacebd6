// Tasks for put-owner.test.ts: values put in workers, read there and elsewhere, and probes of the worker's put owner.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { threadId } from "node:worker_threads";
import { getJobContext, type ObjectRef } from "../../src/job.ts";
import { LOCAL_WORKER_REFS } from "../../src/job/objects/owned-refs.ts";
import { refCountsOf } from "../../src/job/objects/ref-counts.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** `n` doubles, each `fill`. */
export function filled(n: number, fill: number): Float64Array {
  return new Float64Array(n).fill(fill);
}

/** Puts `n` doubles of `fill` and reads them back in this task. */
export async function putAndGet(n: number, fill: number): Promise<{ id: string; exact: boolean }> {
  const ctx = getJobContext();
  const ref = ctx.put(filled(n, fill));
  const [ready] = await ctx.wait([ref]);
  const got = await ctx.get(ref);
  return { id: ref.id, exact: ready[0] === ref && got.length === n && got.every((x) => x === fill) };
}

/** Waits for a put and a nested task together: how many of each are ready once both are asked for. */
export async function waitMixed(): Promise<{ first: string; both: number }> {
  const ctx = getJobContext();
  const put = ctx.put(1);
  const task = ctx.run(filled, 2, 3);
  const [[first]] = await ctx.wait([task, put]);
  const [both] = await ctx.wait([task, put], { numReturns: 2 });
  return { first: first === put ? "put" : "task", both: both.length };
}

/** Puts `n` doubles of `fill`; returns the ref (wrapped, so it arrives as a ref) and this process's id. */
export function putHere(n: number, fill: number): { ref: ObjectRef<Float64Array>; pid: number } {
  return { ref: getJobContext().put(filled(n, fill)), pid: process.pid };
}

/** As putHere, and this worker collects its garbage right after it returns: its own ref is gone before any borrower speaks. */
export function putAndDrop(n: number, fill: number): { ref: ObjectRef<Float64Array> } {
  setImmediate(() => {
    gc();
    setImmediate(gc);
  });
  return { ref: getJobContext().put(filled(n, fill)) };
}

/** Whether `value` is `n` doubles of `fill`, and where it was read (`worker`: process and thread). */
export function check(value: Float64Array, n: number, fill: number): { pid: number; worker: string; exact: boolean } {
  return { pid: process.pid, worker: `${process.pid}.${threadId}`, exact: value.length === n && value.every((x) => x === fill) };
}

/** As check, reading the ref with get. */
export async function checkByGet(wrapped: { ref: ObjectRef<Float64Array> }, n: number, fill: number): Promise<{ pid: number; worker: string; exact: boolean }> {
  return check(await getJobContext().get(wrapped.ref), n, fill);
}

/** Collects this worker's garbage (refs of tasks that ended are dropped then). */
export function collect(): void {
  gc();
}

/** How many values the put owners of this worker keep. */
export function ownedHere(): number {
  let n = 0;
  for (const puts of LOCAL_WORKER_REFS.values()) n += puts.size;
  return n;
}

/** The counts that keep ref `id` at the owners of this worker (its own refs, borrowers). */
export function countsHere(id: string): { own: number; borrowed: number } {
  return refCountsOf(id);
}
