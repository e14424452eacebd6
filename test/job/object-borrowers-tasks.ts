// Tasks for object-borrowers.test.ts: values put by tasks, and a task that keeps a ref it was given after it returns.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { getJobContext, type ObjectRef } from "../../src/job.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Puts `n` doubles, each `fill`, and returns the ref wrapped (a ref returned bare would be resolved to its value). */
export function putBig(n: number, fill: number): { ref: ObjectRef<Float64Array> } {
  return { ref: getJobContext().put(new Float64Array(n).fill(fill)) };
}

/** Puts a small value, which its worker keeps as it is (src/job/worker/worker-owner.ts). */
export function putSmall(value: string): { ref: ObjectRef<string> } {
  return { ref: getJobContext().put(value) };
}

/** A ref this worker keeps after the task that got it returned (a module's state, as a cache would). */
let kept: ObjectRef<Float64Array> | null = null;

/** Keeps the ref it is given (wrapped, so it arrives as a ref) in this worker. */
export function keep(wrapped: { ref: ObjectRef<Float64Array> }): void {
  kept = wrapped.ref;
}

/** The sum of the kept ref's value, read now. */
export async function sumKept(): Promise<number> {
  let total = 0;
  for (const x of await getJobContext().get(kept!)) total += x;
  return total;
}

/** Drops the kept ref, and collects this worker's garbage so its drop is seen. */
export function dropKept(): void {
  kept = null;
  gc();
}

/** Collects this worker's garbage (refs of tasks that ended are dropped then). */
export function collect(): void {
  gc();
}

/** An actor that keeps a ref it is given, as a cache would. */
export class RefKeeper {
  #kept: ObjectRef<Float64Array> | null = null;

  keep(wrapped: { ref: ObjectRef<Float64Array> }): void {
    this.#kept = wrapped.ref;
  }

  async first(): Promise<number> {
    return (await getJobContext().get(this.#kept!))[0];
  }

  drop(): void {
    this.#kept = null;
    gc();
  }
}

/** An actor given a large value itself (its ref resolved before the call). */
export class Summer {
  sum(data: Float64Array, times: number): number {
    let total = 0;
    for (const x of data) total += x;
    return total * times;
  }
}

/** An actor that puts a large value and hands out its ref. */
export class Putter {
  put(n: number, fill: number): { ref: ObjectRef<Float64Array> } {
    return putBig(n, fill);
  }

  /** `n` doubles, each `fill`, as the call's result. */
  big(n: number, fill: number): Float64Array {
    return new Float64Array(n).fill(fill);
  }
}
