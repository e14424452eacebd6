// Zephyr-style map/reduce over a generated corpus. Runs unchanged on every
// backend:  node --import tsx examples/word-count/main.ts [sync|threads|processes]
import { createJobContext, type JobContext } from "fray";
import { countWords, makeShard, mergeAll } from "./tasks.js";

const kind = (process.argv[2] ?? "threads") as "sync" | "threads" | "processes";
const shards = Number(process.argv[3] ?? 16);
const ctx: JobContext = createJobContext(kind, { maxWorkers: 4 });

const t0 = performance.now();
const texts = Array.from({ length: shards }, (_, i) => ctx.run(makeShard, i, 2_000));
const counts = texts.map((text) => ctx.run(countWords, text)); // refs as arguments: resolved where the task runs
const total = await ctx.get(ctx.run(mergeAll, await ctx.get(counts)));
const top = [...total].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
console.log(JSON.stringify({ kind, shards, words: top.reduce((n, [, c]) => n + c, 0), top: top.slice(0, 3) }));
console.error(`${kind}: ${shards} shards in ${(performance.now() - t0).toFixed(0)} ms`);
await ctx.shutdown();
