// The reductions of mesh collectives, on typed arrays. Ranks' contributions are
// always folded in group order, so every rank computes bit-identical results.

export type ReduceOp = "sum" | "prod" | "max" | "min" | "avg";

const OPS: readonly ReduceOp[] = ["sum", "prod", "max", "min", "avg"];

/** Any typed array except DataView: what collectives work on. */
export type NumericArray =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

export function checkArray(what: string, array: unknown): asserts array is NumericArray {
  if (!ArrayBuffer.isView(array) || array instanceof DataView) {
    throw new TypeError(
      `${what} needs a typed array (Float32Array, Int32Array, …) to work on in place, got ` +
        `${array === null ? "null" : typeof array === "object" ? (array.constructor?.name ?? "an object") : typeof array}`,
    );
  }
}

export function checkOp(what: string, op: unknown): ReduceOp {
  if (!OPS.includes(op as ReduceOp)) throw new RangeError(`${what}: unknown op ${JSON.stringify(op)}; give one of ${OPS.map((o) => `"${o}"`).join(", ")}`);
  return op as ReduceOp;
}

type Loose = { [i: number]: number | bigint; length: number };

/** acc[i] = acc[i] op x[i] (avg sums; `finish` divides). */
export function fold(op: ReduceOp, accArray: NumericArray, xArray: NumericArray): void {
  const acc = accArray as unknown as Loose;
  const x = xArray as unknown as Loose;
  const n = acc.length;
  // One loop per op, so each is a tight loop the JIT specialises.
  switch (op) {
    case "sum":
    case "avg":
      for (let i = 0; i < n; i++) (acc[i] as number) += x[i] as number;
      return;
    case "prod":
      for (let i = 0; i < n; i++) (acc[i] as number) *= x[i] as number;
      return;
    case "max":
      for (let i = 0; i < n; i++) if (x[i] > acc[i]) acc[i] = x[i];
      return;
    case "min":
      for (let i = 0; i < n; i++) if (x[i] < acc[i]) acc[i] = x[i];
      return;
  }
}

/** Divides an "avg" sum by the number of ranks (integer arrays truncate, as their element type does). */
export function finish(op: ReduceOp, accArray: NumericArray, ranks: number): void {
  if (op !== "avg") return;
  const acc = accArray as unknown as Loose;
  if (typeof acc[0] === "bigint") {
    const n = BigInt(ranks);
    for (let i = 0; i < acc.length; i++) (acc[i] as bigint) /= n;
  } else for (let i = 0; i < acc.length; i++) (acc[i] as number) /= ranks;
}
