// mesh/array: DistributedArray, the client side (this file) and the rank side
// (array-ops.ts), over the collectives and RemoteBuffer.
//
// DistributedArray (Monarch's distributed tensors, for typed arrays): one
// shard per rank of a mesh, kept on its rank. `endpoint.rref(...)` makes one
// from each rank's return value; `map` and `reduce` make new ones at once,
// running on the ranks in order with the actors' other messages
// (array-ops.ts); only `fetchShard` and `gather` move shard bytes to the
// caller, through RemoteBuffer.
import { NotExportedError, scriptOf } from "../../runtime/face/code.ts";
import { ShardRef } from "../../runtime/face/buffers.ts";
import { ARRAY_OPS, type ExposedShard, type ShardMeta } from "./array-ops.ts";
import type { MeshTarget } from "../mesh-target.ts";
import { describeRank } from "../errors.ts";
import type { Extent } from "../shape/extent.ts";
import { checkOp, type NumericArray, type ReduceOp } from "../collectives/reduce-op.ts";
import type { ValueMesh } from "../shape/value-mesh.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { registerHandleType, TYPED_ARRAYS as TYPED_ARRAY_CLASSES } from "../../wire/codec.ts";

/** Arguments of an endpoint or map function: where it takes a typed array, a DistributedArray of that type gives each rank its shard. */
export type ShardArgs<A extends readonly unknown[]> = { [K in keyof A]: A[K] | (A[K] extends NumericArray ? DistributedArray<A[K]> : never) };

export interface ReduceArrayOptions {
  /** Reduce-scatter: rank i of each group keeps block i of the result (the shard length must be a multiple of the group size). Default false: every
   * rank keeps the whole result (allReduce). */
  readonly scatter?: boolean;
}

const TYPED_ARRAYS: Record<string, new (buffer: ArrayBufferLike | number) => NumericArray> = Object.fromEntries(
  TYPED_ARRAY_CLASSES.map((Ctor) => [Ctor.name, Ctor as new (buffer: ArrayBufferLike | number) => NumericArray]),
);

/** Drops the shards of arrays whose handle was garbage-collected (unless the mesh stopped, which freed them). */
const collected = new FinalizationRegistry<{ mesh: MeshTarget; id: string }>(({ mesh, id }) => {
  if (!mesh.stopped) mesh.endpoint(ARRAY_OPS.drop).broadcast(id);
});

/** An array as it arrived from another process: made there, its shards where they were made. */
interface Arrived {
  readonly id: string;
  readonly label: string;
  /** Each rank's shard meta, if the sender knew it. */
  readonly meta: readonly ShardMeta[] | null;
}

export class DistributedArray<T extends NumericArray = NumericArray> extends ShardRef<T> {
  readonly #mesh: MeshTarget;
  /** Each rank's shard meta, once every rank made its shard; rejects with the first failure (asked for when first needed, for an array that arrived). */
  #made: Promise<readonly ShardMeta[]> | null = null;
  #meta: readonly ShardMeta[] | undefined;
  #dropped = false;

  /**
   * @internal Sends `make` (given the new array's id) to every rank of `mesh`;
   * or stands for an array that `arrived` from another process. Only the handle
   * that made an array frees its shards when it is garbage-collected.
   */
  constructor(mesh: MeshTarget, what: string, make: ((id: string) => Promise<ValueMesh<ShardMeta>>) | Arrived) {
    const id = typeof make === "function" ? currentProc().nextId() : make.id;
    super(id, typeof make === "function" ? `DistributedArray ${id} (${what} on ${mesh.className} mesh ${mesh.shape.extent})` : make.label);
    this.#mesh = mesh;
    if (typeof make !== "function") {
      if (make.meta) this.#made = Promise.resolve((this.#meta = make.meta));
      return;
    }
    this.#made = make(id).then((values) => (this.#meta = values.values()));
    this.#made.catch(() => {}); // reported by the next awaited operation
    collected.register(this, { mesh, id }, this);
  }

  /**
   * @internal Registers how arrays cross the wire: with their mesh, as `toMesh`
   * sends it and `fromMesh` reads it (the mesh's module, which this one may not import).
   */
  static registerWire<M>(toMesh: (target: MeshTarget) => M, fromMesh: (mesh: M) => MeshTarget): void {
    registerHandleType<ShardRef>({
      type: "distributedArray",
      Class: ShardRef,
      toWire: (r) => (r instanceof DistributedArray ? [r.arrayId, r.label, toMesh(r.#mesh), r.#meta ?? null] : [r.arrayId, r.label, null, null]),
      fromWire: (data) => {
        const [id, label, mesh, meta] = data as [string, string, M | null, ShardMeta[] | null];
        return mesh === null ? new ShardRef(id, label) : new DistributedArray(fromMesh(mesh), "", { id, label, meta });
      },
    });
  }

  /** Each rank's shard meta once made; for an array that arrived without it, asked of the ranks. */
  #whenMade(): Promise<readonly ShardMeta[]> {
    if (!this.#made) {
      this.#made = (this.#mesh.endpoint(ARRAY_OPS.meta).call(this) as Promise<ValueMesh<ShardMeta>>).then((values) => (this.#meta = values.values()));
      this.#made.catch(() => {});
    }
    return this.#made;
  }

  /** The extent of the mesh (slice) the shards are on: one shard per rank. */
  get extent(): Extent {
    return this.#mesh.shape.extent;
  }

  /** Resolves once every rank made its shard (then `dtype` and `shardShape` are known); rejects with what failed. */
  async ready(): Promise<void> {
    this.#live("ready");
    await this.#whenMade();
  }

  /** The shards' element type, e.g. "Float64Array" (after `ready()`). */
  get dtype(): string {
    const meta = this.#known("dtype");
    return meta.length ? meta[0][0] : "";
  }

  /** The shape of every shard, when they are all alike (after `ready()`); else throws naming two that differ. */
  get shardShape(): readonly number[] {
    const meta = this.#known("shardShape");
    const odd = meta.findIndex((m) => m[1] !== meta[0][1]);
    if (odd > 0)
      throw new RangeError(`${this.label}: its shards differ in shape (${this.#describe(0)}, ${this.#describe(odd)}); read shardShapes for each rank's`);
    return meta.length ? [meta[0][1]] : [];
  }

  /** Each rank's shard shape, in rank order (after `ready()`). */
  get shardShapes(): ReadonlyArray<readonly number[]> {
    return this.#known("shardShapes").map((m) => [m[1]]);
  }

  /**
   * Runs `fn` (a function exported from a module, under its own name) on every
   * rank with the rank's shard first; each further argument is another
   * DistributedArray on the same ranks (its shard is passed) or a value (sent
   * to every rank). Returns the array of `fn`'s results at once.
   */
  map<A extends unknown[], U extends NumericArray>(fn: (shard: T, ...args: A) => U | Promise<U>, ...args: ShardArgs<A>): DistributedArray<U> {
    this.#live("map");
    if (typeof fn !== "function" || !fn.name)
      throw new TypeError(
        `${this.label}.map(fn): fn must be a named function exported from a module, got ${typeof fn === "function" ? "an anonymous function" : typeof fn}`,
      );
    const url = scriptOf(fn);
    if (!url.startsWith("file:") && !url.startsWith("/"))
      throw new NotExportedError(`${this.label}.map(${fn.name}): ${fn.name} was not defined in a module file; move it to one and export it`);
    const mesh = this.#mesh;
    return new DistributedArray<U>(
      mesh,
      `map ${fn.name}`,
      (id) => mesh.endpoint(ARRAY_OPS.map).call(id, url, fn.name, this, ...args) as Promise<ValueMesh<ShardMeta>>,
    );
  }

  /**
   * Reduces the shards across the ranks that differ only along `dims` (all of
   * the extent's when omitted), with `op` as `collective.allReduce` does;
   * with `scatter`, rank i of each group keeps block i. Returns the new array at once.
   */
  reduce(dims?: string | readonly string[], op: ReduceOp = "sum", options: ReduceArrayOptions = {}): DistributedArray<T> {
    const what = `${this.label}.reduce`;
    this.#live("reduce");
    checkOp(what, op);
    const labels = this.extent.labels;
    const list = dims === undefined ? undefined : typeof dims === "string" ? [dims] : [...dims];
    for (const d of list ?? [])
      if (!labels.includes(d)) throw new RangeError(`${what}: '${d}' is not a dimension of ${this.extent}; give some of ${labels.join(", ")}`);
    const mesh = this.#mesh;
    return new DistributedArray<T>(mesh, `reduce ${op}${options.scatter ? " scatter" : ""}`, (id) => {
      const sent = mesh.endpoint(ARRAY_OPS.reduce).call(id, this, list, op, options.scatter === true) as Promise<ValueMesh<ShardMeta>>;
      // Shards that cannot be reduced together are named here, rather than as the collective's mismatch.
      return sent.catch(async (err) => {
        const meta = await this.#whenMade();
        const odd = meta.findIndex((m) => m[0] !== meta[0][0] || m[1] !== meta[0][1]);
        if (odd > 0)
          throw new RangeError(
            `${what}: the shards differ (${this.#describe(0)}, ${this.#describe(odd)}); a reduction needs the same element type and length on every rank`,
            { cause: err },
          );
        throw err;
      });
    });
  }

  /** The shard of the rank at `coords` (every dimension of `extent`; may be omitted on one rank), copied here. */
  async fetchShard(coords: Readonly<Record<string, number>> = {}): Promise<T> {
    this.#live("fetchShard");
    const rank = this.extent.rankOf(coords);
    return (await this.#copyOut((this.#mesh.endpoint(ARRAY_OPS.expose).callRank(rank, this) as Promise<ExposedShard>).then((e) => [e])))[0];
  }

  /** Every shard, copied here, in rank order. */
  async gather(): Promise<T[]> {
    this.#live("gather");
    return this.#copyOut((this.#mesh.endpoint(ARRAY_OPS.expose).call(this) as Promise<ValueMesh<ExposedShard>>).then((v) => v.values()));
  }

  /** Frees every rank's shard; later operations on this handle throw. */
  async drop(): Promise<void> {
    if (this.#dropped) return;
    this.#dropped = true;
    collected.unregister(this);
    if (this.#mesh.stopped) return; // freed with the mesh
    await this.#mesh
      .endpoint(ARRAY_OPS.drop)
      .call(this.arrayId)
      .catch(() => {}); // a dead rank's shards are gone with it
  }

  /** @internal The sending side of passing this array to an endpoint: only ranks on the same processes hold its shards. */
  override checkTarget(target: MeshTarget): void {
    this.#live(`passing it to ${target.className}`);
    const mine = this.#mesh;
    const n = mine.shape.extent.size;
    const there = target.shape.members;
    const same = there.length === n && there.every((m, r) => target.addrs[m] === mine.addrs[mine.shape.members[r]]);
    if (!same) {
      throw new RangeError(
        `${this.label} cannot be passed to ${target.className} mesh ${target.shape.extent}: its shards are on the processes of ` +
          `${mine.className} mesh ${mine.shape.extent}, and the ranks must be on the same processes in the same order (spawn both on one ` +
          `ProcMesh, with the same extent); or gather() it and pass the values`,
      );
    }
  }

  override toString(): string {
    return this.label;
  }

  /** Waits for the array's making (its failure first), then copies the exposed shards here and releases their buffers. */
  async #copyOut(exposed: Promise<readonly ExposedShard[]>): Promise<T[]> {
    exposed.catch(() => {});
    await this.#whenMade();
    const shards = await exposed;
    try {
      return await Promise.all(
        shards.map(async ([buffer, dtype]) => {
          const Type = TYPED_ARRAYS[dtype];
          const bytes = new Uint8Array(buffer?.size ?? 0);
          if (buffer) await buffer.readInto(bytes);
          return new Type(bytes.buffer) as T;
        }),
      );
    } finally {
      await Promise.all(shards.map(([buffer]) => buffer?.drop().catch(() => {})));
    }
  }

  #live(operation: string): void {
    if (this.#dropped)
      throw new Error(`${this.label}: ${operation} after drop(); the array's shards are freed. Keep the array until its last use, or make it again`);
    if (this.#mesh.stopped) throw new Error(`${this.label}: ${operation} after its mesh was stopped, which freed its shards: ${this.#mesh.stopped.message}`);
  }

  #known(what: string): readonly ShardMeta[] {
    if (!this.#meta)
      throw new Error(`${this.label}.${what} is not known yet: await array.ready() first (the ranks are still making their shards, or failed to)`);
    return this.#meta;
  }

  #describe(rank: number): string {
    const [dtype, n] = this.#meta![rank];
    return `${describeRank(this.#mesh.locate(rank))} has ${dtype}[${n}]`;
  }
}
