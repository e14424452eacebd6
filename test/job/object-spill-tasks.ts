// Tasks for object-spill.test.ts and object-locality.test.ts: large results that say where they were made,
// and readers that say where they ran.

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
