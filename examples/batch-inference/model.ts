// The model of the batch-inference example, in plain TypeScript: a text embedder
// (hashed character trigrams → an embedding table → one tanh layer → unit length)
// and a zero-shot classifier that labels a text by the closest of a few label
// descriptions. Its weights come from a seed, standing in for a model file.

export const LABELS = ["negative", "positive"] as const;
const DESCRIPTIONS = [
  "terrible awful broken useless disappointing refund waste poor cheap flimsy",
  "excellent great wonderful perfect love sturdy reliable recommend fantastic quality",
];

function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32 - 0.5;
  };
}

/** FNV-1a of three char codes: a trigram's bucket. */
function bucket(a: number, b: number, c: number, buckets: number): number {
  let h = 0x811c9dc5;
  for (const x of [a, b, c]) h = Math.imul(h ^ x, 0x01000193);
  return (h >>> 0) % buckets;
}

export class Embedder {
  readonly table: Float32Array;
  readonly layer: Float32Array;
  readonly prototypes: Float32Array[];

  constructor(
    readonly dims = 128,
    readonly buckets = 1 << 14,
    seed = 7,
  ) {
    const random = generator(seed);
    this.table = Float32Array.from({ length: buckets * dims }, random);
    this.layer = Float32Array.from({ length: dims * dims }, () => (random() * 2) / Math.sqrt(dims));
    this.prototypes = DESCRIPTIONS.map((d) => this.embed(d));
  }

  /** The text's embedding: a unit vector of `dims` floats. */
  embed(text: string): Float32Array {
    const { dims, buckets, table, layer } = this;
    const sum = new Float32Array(dims);
    const padded = ` ${text.toLowerCase()} `;
    for (let i = 0; i + 2 < padded.length; i++) {
      const row = bucket(padded.charCodeAt(i), padded.charCodeAt(i + 1), padded.charCodeAt(i + 2), buckets) * dims;
      for (let d = 0; d < dims; d++) sum[d] += table[row + d];
    }
    const out = new Float32Array(dims);
    let norm = 0;
    for (let o = 0; o < dims; o++) {
      let z = 0;
      for (let d = 0, w = o * dims; d < dims; d++) z += layer[w + d] * sum[d];
      out[o] = Math.tanh(z / Math.sqrt(padded.length));
      norm += out[o] * out[o];
    }
    norm = Math.sqrt(norm) || 1;
    for (let o = 0; o < dims; o++) out[o] /= norm;
    return out;
  }

  /** The closest label description's index, and a softmax over the cosine similarities as its confidence. */
  classify(text: string): { label: number; confidence: number } {
    const e = this.embed(text);
    const sims = this.prototypes.map((p) => p.reduce((s, v, i) => s + v * e[i], 0));
    const label = sims.indexOf(Math.max(...sims));
    const exps = sims.map((s) => Math.exp(10 * s));
    return { label, confidence: exps[label] / exps.reduce((a, b) => a + b, 0) };
  }
}
