// The shards of distributed arrays (mesh/array/distributed-array.ts) that live in
// this process: each rank's part, kept where the operation that made it ran,
// never sent to the caller. A shard is stored as the promise of its making, so
// an operation that reads it waits for it, and a failure to make it is what
// every later read of it throws. Keyed by array id and the rank of the actor
// (in its spawned mesh) that made it; released when dropped or when that
// actor stops. A read can come before the making: an array handed on at once
// reaches its ranks from another sender, whose message may overtake the
// maker's (as a call may overtake its actor's spawn), so the read waits for the
// making, up to FRAY_SPAWN_WAIT_MS.
import { config, settingName } from "../base/config.ts";
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

/** A read waiting for its shard's making. */
interface Waiter {
  readonly ref: ShardRef;
  readonly resolve: (shard: Promise<ArrayBufferView>) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/** How many dropped arrays' ids (and released shards) are remembered, for a clear error at once (older ones wait, then are "not made here"). */
const REMEMBERED = 4096;

const key = (arrayId: string, rank: number): string => `${arrayId}/${rank}`;

export class ShardStore {
  readonly #arrays = new Map<string, Map<number, Entry>>();
  readonly #dropped = new Set<string>();
  /** Shards released with the actor that made them, by `key`. */
  readonly #released = new Set<string>();
  /** Reads that came before their shard's making, by `key`. */
  readonly #waiting = new Map<string, Waiter[]>();

  /** Keeps `shard` as rank `rank`'s part of array `arrayId`, made by actor `actor`. */
  put(arrayId: string, rank: number, actor: string, shard: Promise<ArrayBufferView>): void {
    shard.catch(() => {}); // a failure is reported by whoever reads the shard
    let ranks = this.#arrays.get(arrayId);
    if (!ranks) this.#arrays.set(arrayId, (ranks = new Map()));
    ranks.set(rank, { shard, actor });
    const waiters = this.#waiting.get(key(arrayId, rank));
    if (!waiters) return;
    this.#waiting.delete(key(arrayId, rank));
    for (const w of waiters) {
      clearTimeout(w.timer);
      w.resolve(shard);
    }
  }

  /** Rank `rank`'s shard of `ref`, once made (waiting for its making if need be); rejects naming why it is not here. */
  get(ref: ShardRef, rank: number): Promise<ArrayBufferView> {
    const entry = this.#arrays.get(ref.arrayId)?.get(rank);
    if (entry) return entry.shard;
    if (this.#dropped.has(ref.arrayId)) return Promise.reject(missing(ref, rank, "it was dropped"));
    if (this.#released.has(key(ref.arrayId, rank))) return Promise.reject(missing(ref, rank, "the actor that made it stopped or was respawned"));
    return new Promise((resolve, reject) => {
      const k = key(ref.arrayId, rank);
      const timer = setTimeout(() => {
        const waiters = this.#waiting.get(k)!;
        waiters.splice(waiters.indexOf(waiter), 1);
        if (waiters.length === 0) this.#waiting.delete(k);
        reject(
          missing(
            ref,
            rank,
            `none was made here within ${config.spawnWaitMs} ms (${settingName("spawnWaitMs")}): it lives on other processes (pass an array ` +
              "only to meshes spawned on the ProcMesh it was made on), or its making never reached this process",
          ),
        );
      }, config.spawnWaitMs);
      timer.unref();
      const waiter: Waiter = { ref, resolve, reject, timer };
      const waiters = this.#waiting.get(k);
      if (waiters) waiters.push(waiter);
      else this.#waiting.set(k, [waiter]);
    });
  }

  /** `args` with every ShardRef replaced by rank `rank`'s shard. */
  resolve(args: readonly unknown[], rank: number): Promise<unknown[]> {
    return Promise.all(args.map((a) => (a instanceof ShardRef ? this.get(a, rank) : a)));
  }

  /** Frees array `arrayId`'s shards here; reads still waiting for one are told it was dropped. */
  drop(arrayId: string): void {
    for (const [k, waiters] of this.#waiting) {
      if (!k.startsWith(`${arrayId}/`)) continue;
      this.#waiting.delete(k);
      for (const w of waiters) {
        clearTimeout(w.timer);
        w.reject(missing(w.ref, Number(k.slice(arrayId.length + 1)), "it was dropped"));
      }
    }
    if (!this.#arrays.delete(arrayId)) return;
    remember(this.#dropped, arrayId);
  }

  /** Releases every shard actor `actor` made: shards do not outlive their actor. */
  releaseOwnedBy(actor: string): void {
    for (const [id, ranks] of this.#arrays) {
      for (const [rank, entry] of ranks) {
        if (entry.actor !== actor) continue;
        ranks.delete(rank);
        remember(this.#released, key(id, rank));
      }
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

function missing(ref: ShardRef, rank: number, why: string): Error {
  return new Error(`${ref.label} has no shard for rank ${rank} here: ${why}`);
}

/** Adds `item` to `set`, forgetting the oldest past REMEMBERED. */
function remember(set: Set<string>, item: string): void {
  set.add(item);
  if (set.size > REMEMBERED) set.delete(set.values().next().value!);
}

export const SHARDS = new SubsystemKey<ShardStore>("shard store");

/** The shards held by `proc`. */
export function shardsOf(proc: Proc): ShardStore {
  return proc.get(SHARDS);
}
