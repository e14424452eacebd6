/// <reference types="node" preserve="true" />
/**
 * `fray/array`: distributed arrays (Monarch's distributed tensors, for typed
 * arrays) — one shard per rank of an actor mesh, kept on its rank. An
 * endpoint's `rref(...)` makes one; `map` and `reduce` make new ones at once;
 * only `fetchShard` and `gather` move shard bytes to the caller.
 *
 * @example
 * ```ts
 * import type { DistributedArray } from "fray/array";
 * import { thisHost } from "fray/mesh";
 * import { Counter, doubled } from "./tasks.js"; // Counter.values(n) returns a Float64Array; doubled(shard, by) maps one
 * const procs = thisHost().spawnProcs({ gpus: 2 });
 * const shards: DistributedArray<Float64Array> = procs.spawn("counters", Counter, 3).values.rref(4).map(doubled, 2);
 * const total = await shards.reduce("gpus", "sum").fetchShard({ gpus: 0 }); // every rank holds the sum: [12, 12, 12, 12]
 * await procs.stop();
 * ```
 * @module fray/array
 */
export { DistributedArray, type ReduceArrayOptions, type ShardArgs } from "./mesh/array/distributed-array.ts";
export type { NumericArray, ReduceOp } from "./mesh/collectives/reduce-op.ts";
