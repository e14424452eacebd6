// `fray/array`: distributed arrays (Monarch's distributed tensors, for typed arrays).
export { DistributedArray, type ReduceArrayOptions, type ShardArgs } from "./mesh/distributed-array.ts";
export type { NumericArray, ReduceOp } from "./mesh/reduce-op.ts";
