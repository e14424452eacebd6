// Tasks for held-rebuild.test.ts: a shuffle's reducer, which reads every map output given to it.

/** The sum of every element of every array given (each a map output, its ref resolved before the call). */
export function sumAll(...outputs: Float64Array[]): number {
  let total = 0;
  for (const out of outputs) for (const x of out) total += x;
  return total;
}
