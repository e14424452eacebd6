// The pipeline's stages: plain exported functions, so every backend can run them
// as tasks (a worker loads this module by its URL).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Sales in one currency per region; `rates` turns them into euros. */
export type Rates = Record<string, number>;
/** Euros per product. */
export type Totals = Record<string, number>;

const REGIONS = ["emea", "amer", "apac"];
const PRODUCTS = Array.from({ length: 40 }, (_, i) => `product-${String(i).padStart(2, "0")}`);

/** Writes input file `index` to `dir`: `rows` lines of "region,product,amount", the same for the same index. */
export function writeInput(dir: string, index: number, rows: number): string {
  let seed = index * 7919 + 1;
  const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    lines.push(`${REGIONS[Math.floor(next() * 3)]},${PRODUCTS[Math.floor(next() * PRODUCTS.length)]},${Math.round(next() * 10000) / 100}`);
  }
  const file = join(dir, `sales-${String(index).padStart(3, "0")}.csv`);
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

/** Map: one file's euros per product, split into `partitions` by product, as the shuffle sends them (one return each). */
export function mapFile(file: string, rates: Rates, partitions: number): Totals[] {
  const out: Totals[] = Array.from({ length: partitions }, () => ({}));
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line) continue;
    const [region, product, amount] = line.split(",");
    const part = out[partitionOf(product, partitions)];
    part[product] = (part[product] ?? 0) + Number(amount) * rates[region];
  }
  return out;
}

/** Reduce: one partition's totals from every map task, summed (cents rounded once, at the end). */
export function reducePartition(...pieces: Totals[]): Totals {
  const sum: Totals = {};
  for (const piece of pieces) for (const [product, euros] of Object.entries(piece)) sum[product] = (sum[product] ?? 0) + euros;
  for (const product of Object.keys(sum)) sum[product] = Math.round(sum[product] * 100) / 100;
  return sum;
}

/** Which partition a product goes to: a stable hash of its name. */
export function partitionOf(key: string, partitions: number): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
  return Math.abs(h) % partitions;
}
