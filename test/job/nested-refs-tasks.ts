// Tasks for test/job/nested-refs.test.ts. Exported, so workers can load them.
import { getJobContext, type ObjectRef } from "../../src/job.ts";

export function square(x: number): number {
  return x * x;
}

/** Returns refs to `n` values, each from a task it submits (`tasks`) or put in the store (`puts`), without waiting for any. */
export function refsFrom(how: "tasks" | "puts", n: number): ObjectRef<number>[] {
  const ctx = getJobContext();
  return Array.from({ length: n }, (_, i) => (how === "tasks" ? ctx.run(square, i) : ctx.put(i * i)));
}
