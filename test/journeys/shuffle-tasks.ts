// The data-processing journey's tasks (shuffle.ts): generate input files, map each file to partial sums per
// key split into partitions (each partition a return of its own: the map task runs with numReturns), reduce each
// partition across all files. Rows come from a seeded generator, so the driver can compute the exact answer alone.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

export const KEYS = 997;

/** File `file`'s rows, [key, value], from a generator seeded by the file's number. */
export function* rows(file: number, count: number): Generator<[number, number]> {
  let state = ((file + 1) * 2654435761) >>> 0;
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    yield [state % KEYS, (state >>> 10) % 1000];
  }
}

/** Writes file `file` of `count` rows as `key,value` lines; returns its path. */
export async function writeInput(dir: string, file: number, count: number): Promise<string> {
  const lines: string[] = [];
  for (const [key, value] of rows(file, count)) lines.push(`${key},${value}`);
  const path = join(dir, `part-${String(file).padStart(4, "0")}.csv`);
  await writeFile(path, lines.join("\n") + "\n");
  return path;
}

/** Map: the sums per key of one file, split by key into `partitions` arrays, one return each. */
export async function mapFile(path: string, partitions: number): Promise<Array<[number, number]>[]> {
  const sums = Array.from({ length: partitions }, () => new Map<number, number>());
  const text = await readFile(path, "utf8");
  for (const line of text.split("\n")) {
    if (!line) continue;
    const comma = line.indexOf(",");
    const key = Number(line.slice(0, comma));
    const part = sums[key % partitions];
    part.set(key, (part.get(key) ?? 0) + Number(line.slice(comma + 1)));
  }
  return sums.map((part) => [...part]);
}

/** Reduce: one partition's sums per key over every file's piece of it (given as refs, read before the call). */
export function reducePartition(...pieces: Array<Array<[number, number]>>): Array<[number, number]> {
  const total = new Map<number, number>();
  for (const piece of pieces) {
    for (const [key, sum] of piece) total.set(key, (total.get(key) ?? 0) + sum);
  }
  return [...total];
}
