// Map and reduce steps of the word-count example: exported, so every backend
// can run them wherever its workers are.
import { getJobContext } from "fray";

const WORDS = ["actor", "mesh", "task", "object", "host", "proc", "rank", "port", "slice", "job"];

/** Shard `i` of a generated corpus: `lines` lines of words from a seeded generator. */
export function makeShard(i: number, lines: number): string {
  let state = ((i + 1) * 2654435761) >>> 0;
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const out: string[] = [];
  for (let l = 0; l < lines; l++) {
    const n = 3 + Math.floor(next() * 8);
    out.push(Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]).join(" "));
  }
  return out.join("\n");
}

/** Map: word counts of one shard. */
export function countWords(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of text.split(/\s+/)) if (word) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

/** Reduce: merge two partial counts. */
export function merge(a: Map<string, number>, b: Map<string, number>): Map<string, number> {
  const out = new Map(a);
  for (const [w, n] of b) out.set(w, (out.get(w) ?? 0) + n);
  return out;
}

/** Merges counts as a tree of tasks: each level halves the list, in parallel. */
export async function mergeAll(parts: Map<string, number>[]): Promise<Map<string, number>> {
  const ctx = getJobContext();
  let level = parts.map((p) => ctx.put(p));
  while (level.length > 1) {
    const next = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? ctx.run(merge, level[i], level[i + 1]) : level[i]);
    level = next;
  }
  return ctx.get(level[0]);
}
