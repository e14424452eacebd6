// The shards of distributed arrays (mesh/array/distributed-array.ts) that live in
// this process: each rank's part, kept where the operation that made it ran,
// never sent to the caller. A shard is stored as the promise of its making, so
// an operation that reads it waits for it, and a failure to make it is what
// every later read of it throws. Keyed by array id and the rank of the actor
// (in its spawned mesh) that made it; released when dropped or when that
// actor stops.
import type { Proc } from "../proc/proc.ts";
import { SubsystemKey } from "../proc/subsystems.ts";

/**
 * What is sent for a distributed array: its id (with its mesh: the mesh layer
 * registers how it crosses the wire). An actor that receives one as an
 * argument of an endpoint is given its own shard in its place.
 */
export class ShardRef<T = unknown> {
  declare readonly _shard?: T;
  constructor(
    readonly arrayId: string,
    readonly label: string,
  ) {}

  /** Sending side: throws when the array's shards are not where `_target`'s ranks are (overridden where that is known). */
  checkTarget(_target: unknown): void {}
}

/** Whether any argument is a distributed array (checked on every call: a plain loop, nothing allocated). */
export function hasShardRef(args: readonly unknown[]): boolean {
  for (let i = 0; i < args.length; i++) if (args[i] instanceof ShardRef) return true;
  return false;
}

interface Entry {
  readonly shard: Promise<ArrayBufferView>;
  readonly actor: string;
}

/** How many dropped arrays' ids are remembered, for a clear error (older ones are "not known"). */
const REMEMBERED = 4096;

export class ShardStore {
  readonly #arrays = new Map<string, Map<number, Entry>>();
  readonly #dropped = new Set<string>();

  /** Keeps `shard` as rank `rank`'s part of array `arrayId`, made by actor `actor`. */
  put(arrayId: string, rank: number, actor: string, shard: Promise<ArrayBufferView>): void {
    shard.catch(() => {}); // a failure is reported by whoever reads the shard
    let ranks = this.#arrays.get(arrayId);
    if (!ranks) this.#arrays.set(arrayId, (ranks = new Map()));
    ranks.set(rank, { shard, actor });
  }

  /** Rank `rank`'s shard of `ref`; rejects naming why it is not here. */
  get(ref: ShardRef, rank: number): Promise<ArrayBufferView> {
    const entry = this.#arrays.get(ref.arrayId)?.get(rank);
    if (entry) return entry.shard;
    const why = this.#dropped.has(ref.arrayId)
      ? "it was dropped"
      : "this process holds no shard of it for that rank: it lives on other processes (pass an array only to meshes spawned on the ProcMesh " +
        "it was made on), or the actor that made it stopped or was respawned";
    return Promise.reject(new Error(`${ref.label} has no shard for rank ${rank} here: ${why}`));
  }

  /** `args` with every ShardRef replaced by rank `rank`'s shard. */
  resolve(args: readonly unknown[], rank: number): Promise<unknown[]> {
    return Promise.all(args.map((a) => (a instanceof ShardRef ? this.get(a, rank) : a)));
  }

  drop(arrayId: string): void {
    if (!this.#arrays.delete(arrayId)) return;
    this.#dropped.add(arrayId);
    if (this.#dropped.size > REMEMBERED) this.#dropped.delete(this.#dropped.values().next().value!);
  }

  /** Releases every shard actor `actor` made: shards do not outlive their actor. */
  releaseOwnedBy(actor: string): void {
    for (const [id, ranks] of this.#arrays) {
      for (const [rank, entry] of ranks) if (entry.actor === actor) ranks.delete(rank);
      if (ranks.size === 0) this.#arrays.delete(id);
    }
  }

  /** Shards held here. */
  get size(): number {
    let n = 0;
    for (const ranks of this.#arrays.values()) n += ranks.size;
    return n;
  }
}

export const SHARDS = new SubsystemKey<ShardStore>("shard store");

/** The shards held by `proc`. */
export function shardsOf(proc: Proc): ShardStore {
  return proc.get(SHARDS);
}
