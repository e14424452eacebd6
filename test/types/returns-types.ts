// Compile-time checks of tasks with several returns (createTask with numReturns), run by types.test.ts through tsc (strict).
// Every @ts-expect-error line must be an error; everything else must compile.
import { createJobContext, type ObjectRef, type TaskOptions } from "../../src/job.ts";

function pair(label: string): [string, number] {
  return [label, label.length];
}

function parts(count: number): Float64Array[] {
  return Array.from({ length: count }, () => new Float64Array(1));
}

export async function typed(): Promise<void> {
  const ctx = createJobContext("sync");
  // A tuple's returns are typed one by one.
  const [label, length] = ctx.createTask(pair, ["x"], { numReturns: 2 });
  const l: ObjectRef<string> = label;
  const n: ObjectRef<number> = length;
  const both: [string, number] = await ctx.get([label, length]);
  // An array's returns are all typed as its element.
  const refs: ObjectRef<Float64Array>[] = ctx.createTask(parts, [3], { numReturns: 3, maxRetries: 1 });
  const first: Float64Array = await ctx.get(refs[0]);
  // Without numReturns, one ref to the whole value.
  const whole: ObjectRef<[string, number]> = ctx.createTask(pair, ["y"]);
  const options: TaskOptions = { maxRetries: 2 };
  const still: ObjectRef<Float64Array[]> = ctx.createTask(parts, [2], options);
  void [l, n, both, first, whole, still];

  // @ts-expect-error with numReturns the call gives refs, not one ref
  const wrong: ObjectRef<[string, number]> = ctx.createTask(pair, ["z"], { numReturns: 2 });
  // @ts-expect-error a return of `pair` typed as what it is not
  const [notNumber]: ObjectRef<number>[] = ctx.createTask(pair, ["z"], { numReturns: 2 });
  // @ts-expect-error numReturns is a number
  ctx.createTask(pair, ["z"], { numReturns: "2" });
  void [wrong, notNumber];
}
