// The model of the parameter-server example: a linear layer y = xW (inputs × outputs
// weights) fitted by least squares to data from a hidden "teacher" layer plus noise.
// Plain loops over Float32Arrays, row-major.

/** A seeded generator of normal samples (mulberry32 + Box-Muller), the same on every process. */
export function normals(seed: number, length: number, scale = 1): Float32Array {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 2 ** 32;
  };
  const out = new Float32Array(length);
  for (let i = 0; i < length; i += 2) {
    const r = Math.sqrt(-2 * Math.log(uniform())) * scale;
    const a = 2 * Math.PI * uniform();
    out[i] = r * Math.cos(a);
    if (i + 1 < length) out[i + 1] = r * Math.sin(a);
  }
  return out;
}

/** `a` (rows × inner) times `b` (inner × cols), into a new rows × cols array. */
export function matmul(a: Float32Array, b: Float32Array, rows: number, inner: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < inner; i++) {
      const x = a[r * inner + i];
      if (x === 0) continue;
      for (let j = 0, o = r * cols, w = i * cols; j < cols; j++) out[o + j] += x * b[w + j];
    }
  }
  return out;
}

/** `aᵀ` (a is rows × inner) times `b` (rows × cols), scaled: an inner × cols array. */
export function matmulTransposed(a: Float32Array, b: Float32Array, rows: number, inner: number, cols: number, scale: number): Float32Array {
  const out = new Float32Array(inner * cols);
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < inner; i++) {
      const x = a[r * inner + i] * scale;
      for (let j = 0, o = i * cols, s = r * cols; j < cols; j++) out[o + j] += x * b[s + j];
    }
  }
  return out;
}
