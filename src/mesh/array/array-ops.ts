// The rank side of distributed arrays (distributed-array.ts): builtin
// endpoints every actor has, run in its mailbox in order with its other
// messages. Each operation that makes an array keeps its result in this
// process's shard store (runtime/bulk/shard-store.ts) and answers with the shard's
// element type and length only. The reads (meta, expose) only start in order:
// one that came from another process before the making it waits for (an array
// handed on at once can overtake its making) must not hold the mailbox that
// making is queued in, so the mailbox goes on while they wait.
import { registerBuiltinEndpoint } from "../../runtime/face/actors.ts";
import { load, NotExportedError } from "../../runtime/face/code.ts";
import { messageContext } from "../../runtime/face/procs.ts";
import { shardsOf, type ShardRef, type ShardStore } from "../../runtime/face/buffers.ts";
import { collective } from "../collectives/collective.ts";
import type { NumericArray, ReduceOp } from "../collectives/reduce-op.ts";
import { RemoteBuffer } from "../remote-buffer.ts";

export const ARRAY_OPS = {
  rref: "fray:array.rref",
  map: "fray:array.map",
  reduce: "fray:array.reduce",
  expose: "fray:array.expose",
  meta: "fray:array.meta",
  drop: "fray:array.drop",
} as const;

/** What a rank answers about a shard it made: its element type and length. */
export type ShardMeta = readonly [dtype: string, length: number];

/** A shard's bytes, lent as a RemoteBuffer (null when it is empty), and its element type. */
export type ExposedShard = readonly [buffer: RemoteBuffer | null, dtype: string];

function here(): { store: ShardStore; rank: number; actor: string } {
  const { actor } = messageContext.getStore()!;
  return { store: shardsOf(actor.proc), rank: actor.rank, actor: actor.actorId };
}

function asShard(value: unknown, what: string): NumericArray {
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return value as NumericArray;
  const got = value === null ? "null" : typeof value === "object" ? (value.constructor?.name ?? "an object") : typeof value;
  throw new TypeError(`${what} returned ${got}; the shards of a DistributedArray are typed arrays (Float64Array, Int32Array, …): return one`);
}

/** Keeps what `make` resolves to as this rank's shard of array `arrayId`; answers with its meta. */
async function keep(arrayId: string, what: string, make: (store: ShardStore, rank: number) => Promise<unknown>): Promise<ShardMeta> {
  const { store, rank, actor } = here();
  const shard = (async () => asShard(await make(store, rank), what))();
  store.put(arrayId, rank, actor, shard);
  const s = await shard;
  return [s.constructor.name, s.length];
}

registerBuiltinEndpoint(ARRAY_OPS.rref, function (this: object, arrayId, method, ...args) {
  const actor = this as Record<string, (...a: unknown[]) => unknown>;
  const what = `${this.constructor.name}.${method as string}`;
  return keep(arrayId as string, what, async (store, rank) => actor[method as string](...(await store.resolve(args, rank))));
});

registerBuiltinEndpoint(ARRAY_OPS.map, (arrayId, url, name, ...args) => {
  const what = `map function ${name as string}`;
  return keep(arrayId as string, what, async (store, rank) => {
    let fn: unknown;
    try {
      fn = await load({ url: url as string, exportName: name as string });
    } catch (err) {
      throw new NotExportedError(`${what}: ${(err as Error).message}; export it from its module under its own name ('export function ${name as string}')`);
    }
    if (typeof fn !== "function") throw new TypeError(`${what}: the export ${name as string} of ${url as string} is not a function`);
    return fn(...(await store.resolve(args, rank)));
  });
});

registerBuiltinEndpoint(ARRAY_OPS.reduce, (arrayId, source, dims, op, scatter) => {
  const options = { dims: dims as string[] | undefined, op: op as ReduceOp };
  return keep(arrayId as string, "reduce", async (store, rank) => {
    const shard = asShard(await store.get(source as ShardRef, rank), "the reduced array");
    return scatter ? collective.reduceScatter(shard, options) : collective.allReduce(shard.slice(), options);
  });
});

const READ = { concurrent: true };

registerBuiltinEndpoint(
  ARRAY_OPS.expose,
  async (source): Promise<ExposedShard> => {
    const { store, rank } = here();
    const shard = asShard(await store.get(source as ShardRef, rank), "the fetched array");
    return [shard.byteLength === 0 ? null : new RemoteBuffer(shard), shard.constructor.name];
  },
  READ,
);

registerBuiltinEndpoint(
  ARRAY_OPS.meta,
  async (source): Promise<ShardMeta> => {
    const { store, rank } = here();
    const shard = asShard(await store.get(source as ShardRef, rank), "the array");
    return [shard.constructor.name, shard.length];
  },
  READ,
);

registerBuiltinEndpoint(ARRAY_OPS.drop, (arrayId) => {
  here().store.drop(arrayId as string);
  return null;
});
