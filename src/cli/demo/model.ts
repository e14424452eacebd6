// The model `fray demo` trains: logistic regression on a synthetic two-class
// set, in plain TypeScript. Every row is a function of (seed, row index) alone,
// so any process makes any part of the set without it being sent or stored,
// and a shard is the same rows however many processes share the work.

/** Features per row. */
export const FEATURES = 32;
/** Fraction of labels flipped at random: no model beats 1 − LABEL_NOISE on average. */
export const LABEL_NOISE = 0.05;

/** Rows [start, start + count) of the set: `x` row-major (count × FEATURES), `y` 0 or 1. */
export interface Rows {
  readonly x: Float32Array;
  readonly y: Float32Array;
  readonly count: number;
}

/** Weights of the model: FEATURES coefficients, then the bias. */
export const weightCount = FEATURES + 1;

// splitmix32-style mixing: one well-spread 32-bit state per (seed, index).
function mix(a: number): number {
  a = (a + 0x9e3779b9) | 0;
  a = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
  a = Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
  return (a ^ (a >>> 16)) >>> 0 || 1;
}

/** The hidden rule the labels come from: coefficients in [-1, 1) and a small bias, from the seed. */
function truth(seed: number): Float64Array {
  const w = new Float64Array(weightCount);
  let s = mix(seed ^ 0x5bd1e995);
  for (let j = 0; j < weightCount; j++) {
    s = xorshift(s);
    w[j] = (s / 0x80000000 - 1) * (j === FEATURES ? 0.25 : 1);
  }
  return w;
}

function xorshift(s: number): number {
  s ^= s << 13;
  s ^= s >>> 17;
  s ^= s << 5;
  return s >>> 0;
}

/** Makes rows [start, start + count): features uniform in [-1, 1), label the hidden rule's side, LABEL_NOISE flipped. */
export function makeRows(seed: number, start: number, count: number): Rows {
  const w = truth(seed);
  const x = new Float32Array(count * FEATURES);
  const y = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    let s = mix(seed * 0x01000193 + start + i);
    let z = w[FEATURES];
    const at = i * FEATURES;
    for (let j = 0; j < FEATURES; j++) {
      s = xorshift(s);
      const v = s / 0x80000000 - 1;
      x[at + j] = v;
      z += w[j] * v;
    }
    s = xorshift(s);
    const flip = s / 0x100000000 < LABEL_NOISE;
    y[i] = z >= 0 !== flip ? 1 : 0;
  }
  return { x, y, count };
}

/**
 * Mean gradient of the log-loss over `batch` rows of `rows` from `offset`
 * (wrapping around), into `out` (weightCount entries), and the mean loss in
 * `out[weightCount]`: one array, so one allReduce carries both.
 */
export function gradient(rows: Rows, weights: Float64Array, offset: number, batch: number, out: Float64Array): Float64Array {
  out.fill(0);
  let loss = 0;
  const { x, y, count } = rows;
  for (let k = 0; k < batch; k++) {
    const i = (offset + k) % count;
    const at = i * FEATURES;
    let z = weights[FEATURES];
    for (let j = 0; j < FEATURES; j++) z += weights[j] * x[at + j];
    const p = 1 / (1 + Math.exp(-z));
    // log(1 + e^z) − y·z, computed without overflow
    loss += (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z))) - y[i] * z;
    const d = p - y[i];
    for (let j = 0; j < FEATURES; j++) out[j] += d * x[at + j];
    out[FEATURES] += d;
  }
  for (let j = 0; j < weightCount; j++) out[j] /= batch;
  out[weightCount] = loss / batch;
  return out;
}

/** One step of gradient descent with the (averaged) gradient. */
export function descend(weights: Float64Array, grad: Float64Array, learningRate: number): void {
  for (let j = 0; j < weightCount; j++) weights[j] -= learningRate * grad[j];
}

/** Fraction of `rows` the weights classify right. */
export function accuracy(rows: Rows, weights: Float64Array): number {
  let right = 0;
  for (let i = 0; i < rows.count; i++) {
    let z = weights[FEATURES];
    for (let j = 0; j < FEATURES; j++) z += weights[j] * rows.x[i * FEATURES + j];
    if ((z >= 0 ? 1 : 0) === rows.y[i]) right++;
  }
  return right / rows.count;
}

/** Where a rank's shard starts and how many rows it has: `rows` split as evenly as can be. */
export function shardOf(rows: number, rank: number, ranks: number): { start: number; count: number } {
  const start = Math.floor((rows * rank) / ranks);
  return { start, count: Math.floor((rows * (rank + 1)) / ranks) - start };
}

/** The rows of a step's mini-batch on a shard: consecutive, from here. */
export function batchOffset(step: number, batch: number, shardRows: number): number {
  return (step * batch) % shardRows;
}

/**
 * One step of the data-parallel training done in one process: each shard's
 * mini-batch gradient, averaged, then one descent step. Returns the mean loss.
 */
export function stepOverShards(shards: readonly Rows[], weights: Float64Array, step: number, batch: number, learningRate: number): number {
  const grad = new Float64Array(weightCount + 1);
  const mean = new Float64Array(weightCount + 1);
  for (const shard of shards) {
    gradient(shard, weights, batchOffset(step, batch, shard.count), batch, grad);
    for (let j = 0; j <= weightCount; j++) mean[j] += grad[j];
  }
  for (let j = 0; j <= weightCount; j++) mean[j] /= shards.length;
  descend(weights, mean, learningRate);
  return mean[weightCount];
}

/** The n shards of `rows` rows, all made here (the one-process comparison). */
export function allShards(seed: number, rows: number, n: number): Rows[] {
  return Array.from({ length: n }, (_, r) => {
    const { start, count } = shardOf(rows, r, n);
    return makeRows(seed, start, count);
  });
}
