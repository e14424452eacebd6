// Tasks for blocked-waits.test.ts: a task that waits in one get() for several refs, each ready at its own time.
import { getJobContext, type ObjectRef } from "../../src/job.ts";

export function one(): number {
  return 1;
}

/** `x` plus one (its ref resolved before the call, so it starts only once `x` is ready). */
export function next(x: number): number {
  return x + 1;
}

/**
 * Waits in one get() for `a` (a task with no arguments) and `c` (two tasks after `a`, one after the other): on a worker
 * with one slot, `c`'s tasks need that slot after `a` is ready and while this task still waits for `c`.
 */
export async function waitForChain(): Promise<number[]> {
  const ctx = getJobContext();
  const a: ObjectRef<number> = ctx.createTask(one, []);
  const b = ctx.createTask(next, [a]);
  const c = ctx.createTask(next, [b]);
  return ctx.get([a, c]);
}
