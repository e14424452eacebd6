// Compile-time checks of the collectives' types: results keep the array's type, ops are checked.
import { collective, type CollectivePath, type CollectivePathStats } from "../../src/mesh.ts";

export async function typed(): Promise<void> {
  const grads: Float32Array = await collective.allReduce(new Float32Array(4), { op: "avg", dims: ["gpus"] });
  const all: Int32Array = await collective.allGather(new Int32Array(4));
  const mine: Float64Array = await collective.reduceScatter(new Float64Array(8), { op: "max" });
  const big: BigInt64Array = await collective.broadcast(new BigInt64Array(2), { root: 1 });
  const root: Uint8Array = await collective.reduce(new Uint8Array(2), { root: 0, op: "min" });
  await collective.barrier({ dims: ["hosts"] });
  void [grads, all, mine, big, root];
  const stats: CollectivePathStats = collective.pathStats();
  const path: CollectivePath = "sharedMemory";
  const bytes: number = stats[path].bytes + stats.socket.pieces;
  void bytes;

  // @ts-expect-error: not an op
  await collective.allReduce(new Float32Array(4), { op: "mean" });
  // @ts-expect-error: collectives work on typed arrays, not plain arrays
  await collective.allReduce([1, 2, 3]);
  // @ts-expect-error: the result has the argument's type
  const wrong: Float64Array = await collective.allReduce(new Float32Array(4));
  void wrong;
}
