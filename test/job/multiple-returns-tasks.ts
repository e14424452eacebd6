// Tasks for multiple-returns.test.ts: tasks that return several values (numReturns), readers of one of them, and probes.
import { appendFileSync } from "node:fs";
import { getJobContext } from "../../src/job.ts";

/** `count` values: value i is `i * step`. */
export function spread(count: number, step: number): number[] {
  return Array.from({ length: count }, (_, i) => i * step);
}

/** Three values of three kinds. */
export function trio(label: string): [string, number, boolean] {
  return [label, label.length, label.length > 3];
}

/** Whatever it is given, as its value (for a task with numReturns that returns the wrong thing). */
export function returnAsIs(value: unknown): unknown {
  return value;
}

/** `count` partitions of `n` doubles each, partition i filled with i + 1 (each far above the inline threshold). */
export function partitions(count: number, n: number): Float64Array[] {
  return Array.from({ length: count }, (_, i) => new Float64Array(n).fill(i + 1));
}

/** As partitions, appending this process's id to `log` first (a line per run, so a test counts them). */
export function partitionsTelling(count: number, n: number, log: string): Float64Array[] {
  appendFileSync(log, `${process.pid}\n`);
  return partitions(count, n);
}

/** The sum of a partition given as an argument (its ref resolved before the call). */
export function total(part: Float64Array): number {
  let sum = 0;
  for (const x of part) sum += x;
  return sum;
}

/** Runs `spread` as a nested task with numReturns and sums what the returns hold: refs made in a worker. */
export async function nestedSpread(count: number): Promise<number> {
  const ctx = getJobContext();
  const refs = ctx.createTask(spread, [count, 2], { numReturns: count });
  const values = await ctx.get(refs);
  return values.reduce((a, b) => a + b, 0);
}

/** Waits until cancelled (its signal aborts), then returns `count` values. */
export async function slowSpread(count: number): Promise<number[]> {
  const { signal } = getJobContext();
  await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve())));
  return spread(count, 1);
}

/** Starts `spread` with numReturns and an argument that cannot be sent; what a read of its first return says. */
export async function nestedUnsendable(): Promise<string> {
  const ctx = getJobContext();
  const refs = ctx.createTask(spread, [(() => 2) as never, 1], { numReturns: 2 });
  return ctx.get(refs[1]).then(
    () => "no error",
    (err: Error) => err.message,
  );
}
