// `fray/array`: distributed arrays (Monarch's distributed tensors, for typed arrays).
export { DistributedArray, type ReduceArrayOptions, type ShardArgs } from "./mesh/array/distributed-array.ts";
export type { NumericArray, ReduceOp } from "./mesh/collectives/reduce-op.ts";
