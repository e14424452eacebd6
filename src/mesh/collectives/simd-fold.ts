// Folds of float32 and float64 arrays in WebAssembly SIMD, 16 bytes per
// instruction, for the chunks `combine` reduces (collective.ts): the JS loop
// (reduce-op.ts) costs ~2 ns an element, the largest part of a large allReduce
// between processes. Results are bit-identical to the JS loop's: adding or
// multiplying two float32s in double precision and rounding to float32 (as a
// Float32Array store does) gives the float32 operation's result, and pmax/pmin
// are exactly `x > acc ? x : acc` and `x < acc ? x : acc`, NaNs included.
//
// The module is written out here (a few hundred bytes): one function per op and
// element type, `f(acc, x, bytes)` doing acc[i] = acc[i] op x[i] over `bytes`
// (a multiple of 16) at those addresses of its memory.
import type { NumericArray, ReduceOp } from "./reduce-op.ts";

/** SIMD opcodes (after the 0xfd prefix, LEB128) of each op, for f32x4 and f64x2. */
const OPCODES: Record<"f32" | "f64", Record<Exclude<ReduceOp, "avg">, number[]>> = {
  f32: { sum: [0xe4, 0x01], prod: [0xe6, 0x01], min: [0xea, 0x01], max: [0xeb, 0x01] },
  f64: { sum: [0xf0, 0x01], prod: [0xf2, 0x01], min: [0xf6, 0x01], max: [0xf7, 0x01] },
};
const KINDS = ["f32", "f64"] as const;
const OPS = ["sum", "prod", "min", "max"] as const;

function section(id: number, body: number[]): number[] {
  return [id, ...leb(body.length), ...body];
}

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
}

/** for (end = acc + bytes; acc < end; acc += 16, x += 16) store(acc, op(load(acc), load(x))) */
function body(op: number[]): number[] {
  const code = [
    ...[0x01, 0x01, 0x7f], // one local: i32 end
    ...[0x20, 0x00, 0x20, 0x02, 0x6a, 0x21, 0x03], // end = acc + bytes
    ...[0x02, 0x40, 0x03, 0x40], // block, loop
    ...[0x20, 0x00, 0x20, 0x03, 0x4f, 0x0d, 0x01], // if acc >= end: break
    ...[0x20, 0x00], // the store's address
    ...[0x20, 0x00, 0xfd, 0x00, 0x00, 0x00], // v128.load acc
    ...[0x20, 0x01, 0xfd, 0x00, 0x00, 0x00], // v128.load x
    ...[0xfd, ...op],
    ...[0xfd, 0x0b, 0x00, 0x00], // v128.store
    ...[0x20, 0x00, 0x41, 0x10, 0x6a, 0x21, 0x00], // acc += 16
    ...[0x20, 0x01, 0x41, 0x10, 0x6a, 0x21, 0x01], // x += 16
    ...[0x0c, 0x00, 0x0b, 0x0b, 0x0b], // br loop; end loop, block, function
  ];
  return [...leb(code.length), ...code];
}

function moduleBytes(pages: number): Uint8Array {
  const names = KINDS.flatMap((k) => OPS.map((o) => `${k}${o}`));
  const name = (s: string) => [...leb(s.length), ...Buffer.from(s)];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [0x01, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x00]), // (i32, i32, i32) -> ()
    ...section(3, [names.length, ...names.map(() => 0x00)]),
    ...section(5, [0x01, 0x00, ...leb(pages)]),
    ...section(7, [names.length + 1, ...name("m"), 0x02, 0x00, ...names.flatMap((n, i) => [...name(n), 0x00, i])]),
    ...section(10, [names.length, ...KINDS.flatMap((k) => OPS.flatMap((o) => body(OPCODES[k][o])))]),
  ]);
}

/** Two chunks of `bytes` each in wasm memory — the running result and a peer's part — and the folds over them. */
export interface SimdChunks {
  readonly acc: Uint8Array;
  readonly x: Uint8Array;
  /** acc = acc op x over their first `bytes` (a multiple of 16) bytes, as arrays of `kind`. */
  fold(kind: "f32" | "f64", op: ReduceOp, bytes: number): void;
}

/** The little of WebAssembly used here (the project's TypeScript lib does not declare it). */
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}

let made: SimdChunks | null | undefined;

/** The chunks, for chunks of `bytes` (fixed by the first call); null where WebAssembly SIMD is not available. */
export function simdChunks(bytes: number): SimdChunks | null {
  if (made !== undefined) return made;
  try {
    const pages = Math.ceil((2 * bytes) / 65536);
    const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
    const { exports } = new wasm.Instance(new wasm.Module(moduleBytes(pages)));
    const memory = exports.m as { buffer: ArrayBuffer };
    const fns = exports as Record<string, (acc: number, x: number, bytes: number) => void>;
    made = {
      acc: new Uint8Array(memory.buffer, 0, bytes),
      x: new Uint8Array(memory.buffer, bytes, bytes),
      fold: (kind, op, n) => fns[`${kind}${op === "avg" ? "sum" : op}`](0, bytes, n),
    };
  } catch {
    made = null;
  }
  return made;
}

/** The SIMD element type of `array`, or null (integers and BigInts fold in JS). */
export function simdKind(array: NumericArray): "f32" | "f64" | null {
  return array instanceof Float32Array ? "f32" : array instanceof Float64Array ? "f64" : null;
}
