import { objectStats } from "../base/metrics.ts";
import { metricsOn } from "../../runtime/face/metrics.ts";
import { hold, release } from "../../runtime/face/procs.ts";
import { HeldValue } from "./held-value.ts";
import { checkReturns } from "./task-returns.ts";
import { RefCounts } from "./ref-counts.ts";
import { ObjectFreedError } from "../base/errors.ts";

/** How many freed ids a store remembers, so a late read of one fails (ObjectFreedError) instead of waiting forever. */
const FREED_REMEMBERED = 65_536;

// The job's object store: one entry per ObjectRef id, created on first mention
// (a ref can be used before the task that fills it is registered), settled once.
// A result held by its worker is kept as its HeldValue: forgetting it frees the holder's bytes.
// `resolve` and `reject` are methods: call them on the entry, do not pass them on unbound.
export interface Entry {
  readonly promise: Promise<unknown>;
  settled: boolean;
  /** Released while pending: forget it once settled. */
  dropped: boolean;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * An entry as a class, not closures: a batch of 20,000 tasks makes 20,000 of
 * them. Its promise is made when first asked for while it is pending, and let
 * go once it settles (a settled entry hands out a settled promise of its value):
 * an entry outlives its ref until a full GC finds the ref gone, and each young
 * GC meanwhile copies what it holds.
 */
class StoreEntry implements Entry {
  settled = false;
  dropped = false;
  #promise: Promise<unknown> | null = null;
  #resolve: ((v: unknown) => void) | null = null;
  #reject: ((e: unknown) => void) | null = null;
  /** The value, or the error (`#failed`), once settled. */
  #value: unknown = undefined;
  #failed = false;

  get failed(): boolean {
    return this.#failed;
  }

  /** Its value, or its error (`failed`), once settled. */
  get outcome(): unknown {
    return this.#value;
  }

  constructor(
    private readonly store: ObjectStore,
    readonly id: string,
  ) {}

  get promise(): Promise<unknown> {
    if (this.#promise !== null) return this.#promise;
    if (!this.settled) {
      this.store.awaited();
      return (this.#promise = new Promise<unknown>((res, rej) => ((this.#resolve = res), (this.#reject = rej))));
    }
    if (!this.#failed) return Promise.resolve(this.#value);
    const failed = Promise.reject(this.#value);
    failed.catch(() => {}); // reported by whoever awaits it, not as an unhandled rejection
    return failed;
  }

  resolve(value: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.#value = value;
    this.store.settled(this, value);
    if (this.#promise !== null) this.store.unawaited();
    this.#resolve?.(value);
    this.#forget();
  }

  reject(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.#value = error;
    this.#failed = true;
    this.store.settled(this, undefined, error);
    if (this.#promise !== null) {
      this.store.unawaited();
      this.#promise.catch(() => {}); // a failed task is reported by get(), not as an unhandled rejection
      this.#reject!(error);
    }
    this.#forget();
  }

  /** Settled: its awaiters hold its promise while they need it; the entry keeps the value only. */
  #forget(): void {
    this.#promise = null;
    this.#resolve = null;
    this.#reject = null;
  }
}

/** Where a forwarded entry's outcome goes: its value (`ok`) or its error. */
export type Forward = (outcome: unknown, ok: boolean) => void;

export class ObjectStore {
  #entries = new Map<string, Entry>();
  /** How many entries not settled yet are awaited: while any is (and `keepsAlive`, until `close`), the process is held. */
  #awaited = 0;
  #closed = false;
  /** The estimated bytes of each value counted in the object-store metrics (typed arrays only). */
  #bytes = new Map<string, number>();
  /** The entries whose values are held by workers: freed there when forgotten here. */
  #held = new Map<string, HeldValue>();
  /** Told when an entry held by a worker is forgotten (../tasks/lineage.ts). */
  onHeldFreed: ((id: string) => void) | null = null;
  /** Ids freed because no ref held them any more, oldest first (at most FREED_REMEMBERED). */
  #freed = new Set<string>();
  /** Entries whose outcome goes to a ref's owner in a worker when they settle (a nested task's): then they are forgotten. */
  #forwards = new Map<string, Forward>();
  /** Entries of tasks with several returns, by task id: the ids of their returns, and the task's name. */
  #splits = new Map<string, { readonly returns: readonly string[]; readonly name: string }>();

  /**
   * Entry `taskId` is that of task `name`, which has several returns (`returns`, their ref ids): when it settles, its
   * value (an array of as many values, each a value or a HeldValue) settles each return's entry, or its error all of
   * them; then it is forgotten. `open`: the returns to make pending entries for now (a rebuild makes the lost ones).
   */
  split(taskId: string, returns: readonly string[], name: string, open: readonly string[] = returns): void {
    this.#splits.set(taskId, { returns, name });
    this.entry(taskId).dropped = true; // no ref of its own: forgotten once settled
    for (const id of open) this.entry(id);
  }

  /**
   * Entry `id` is a nested task's, whose ref a worker's owner keeps (../worker/worker-owner.ts): when it settles, `to`
   * gets its value (a HeldValue included, which this store then neither keeps nor frees) or its error, and the entry is
   * forgotten. An entry settled already (cancelled before its submit came) goes at once.
   */
  forward(id: string, to: Forward): void {
    const e = this.#entries.get(id);
    if (e instanceof StoreEntry && e.settled) {
      if (this.#entries.delete(id) && metricsOn) objectStats.entries--;
      return to(e.outcome, !e.failed);
    }
    this.#forwards.set(id, to);
  }

  /** Whether entry `id` goes to its owner once it settles. */
  forwarding(id: string): boolean {
    return this.#forwards.size !== 0 && this.#forwards.has(id);
  }

  /** Whether task `taskId`, one with several returns, has not ended. */
  splitting(taskId: string): boolean {
    return this.#splits.has(taskId);
  }

  /** Task `taskId` (split) settled: each return's entry still pending takes its value, or the error; a value no one awaits any more is freed. */
  #fanOut(taskId: string, value: unknown, error: unknown, failed: boolean): void {
    const { returns, name } = this.#splits.get(taskId)!;
    this.#splits.delete(taskId);
    let values: unknown[] | null = null;
    if (!failed) {
      try {
        values = checkReturns(value, returns.length, name);
      } catch (err) {
        error = err; // the worker checks first: here for a value that came another way (sync)
      }
    }
    returns.forEach((id, i) => {
      const entry = this.#entries.get(id);
      if (entry && !entry.settled) return values ? entry.resolve(values[i]) : entry.reject(error);
      if (values?.[i] instanceof HeldValue) values[i].free(); // a return made again for another one's sake, or released
    });
  }
  /** What keeps each value: this process's refs and other processes' borrows; an entry no count keeps any more is released. */
  readonly counts = new RefCounts((id) => this.release(id));

  /** The HeldValue entry `id` keeps, if its value is held by a worker. */
  held(id: string): HeldValue | undefined {
    return this.#held.get(id);
  }

  /** Entry `id`'s value was lost with its holder and its task runs again: the next mention makes a pending entry. */
  reopen(id: string): void {
    this.#freed.delete(id);
    this.#held.delete(id);
    this.#delete(id);
  }

  /**
   * `keepsAlive`: while anyone awaits an entry not settled yet, this process stays up (a job's head: a ref's task may
   * not have reached the head yet — a task returns refs of tasks it submitted, whose submits can arrive after its
   * result — and meanwhile nothing else holds the driver's event loop, so it would end with the get unanswered).
   */
  constructor(private readonly keepsAlive = false) {}

  /** Counts `ref`, a ref of this process: its value is released once it and every other ref to it are dropped (ref-counts.ts). */
  track<R extends { readonly id: string }>(ref: R): R {
    return this.counts.track(ref);
  }

  entry(id: string): Entry {
    let e = this.#entries.get(id);
    if (!e && this.#freed.has(id)) return this.#freedEntry(id);
    if (!e) {
      this.#entries.set(id, (e = new StoreEntry(this, id)));
      if (metricsOn) objectStats.entries++;
    }
    return e;
  }

  /** @internal An entry not settled is awaited: the process stays up until it settles. */
  awaited(): void {
    if (!this.keepsAlive || this.#closed) return;
    if (this.#awaited++ === 0) hold();
  }

  /** @internal An awaited entry settled. */
  unawaited(): void {
    if (!this.keepsAlive || this.#closed || this.#awaited === 0) return;
    if (--this.#awaited === 0) release();
  }

  /** The job ended: entries still awaited (their tasks will never run) no longer hold the process. */
  close(): void {
    if (!this.#closed && this.#awaited > 0) release();
    this.#closed = true;
  }

  /** Whether ref `id` is here and settled with a value (not an error); asks without making an entry. */
  resolved(id: string): boolean {
    const e = this.#entries.get(id);
    return e instanceof StoreEntry && e.settled && !e.failed;
  }

  /** @internal An entry settled with `value` (undefined for an error, given as `error`). */
  settled(entry: StoreEntry, value: unknown, error?: unknown): void {
    if (this.#splits.size !== 0 && this.#splits.has(entry.id)) this.#fanOut(entry.id, value, error, entry.failed);
    const to = this.#forwards.size === 0 ? undefined : this.#forwards.get(entry.id);
    if (to) {
      this.#forwards.delete(entry.id);
      if (this.#entries.delete(entry.id) && metricsOn) objectStats.entries--;
      return to(entry.failed ? error : value, !entry.failed);
    }
    if (value instanceof HeldValue) this.#held.set(entry.id, value);
    if (metricsOn && value !== undefined) this.#countBytes(entry.id, value);
    if (entry.dropped) this.#delete(entry.id);
  }

  /** An entry, kept nowhere, that a read of the freed value `id` gets: its ObjectFreedError. A value given it (a late retry's) is let go. */
  #freedEntry(id: string): Entry {
    const failed = Promise.reject(new ObjectFreedError(`ObjectRef(${id})`));
    failed.catch(() => {}); // reported by whoever awaits it
    const letGo = (value: unknown) => value instanceof HeldValue && value.free();
    return { promise: failed, settled: true, dropped: true, resolve: letGo, reject: () => {} };
  }

  /** Forgets an entry (its value is no longer referenced) — once it is settled, so a pending task still fills the entry its waiters hold. */
  release(id: string): void {
    const e = this.#entries.get(id);
    if (!e) return;
    this.#freed.add(id);
    if (this.#freed.size > FREED_REMEMBERED) this.#freed.delete(this.#freed.values().next().value!);
    if (e.settled) this.#delete(id);
    else e.dropped = true;
  }

  #delete(id: string): void {
    const held = this.#held.get(id);
    if (held) {
      this.#held.delete(id);
      held.free();
      this.onHeldFreed?.(id);
    }
    if (!this.#entries.delete(id) || !metricsOn) return;
    objectStats.entries--;
    objectStats.bytes -= this.#bytes.get(id) ?? 0;
    this.#bytes.delete(id);
  }

  #countBytes(id: string, value: unknown): void {
    const bytes = estimatedBytes(value);
    if (bytes === 0) return;
    this.#bytes.set(id, bytes);
    objectStats.bytes += bytes;
  }

  get size(): number {
    return this.#entries.size;
  }
}

/**
 * Which of `ids` settle first (`valueOf(id)`: the promise of one's value):
 * `[ready, pending]` once `numReturns` have settled, or after `timeoutMs`,
 * whichever is sooner. Ready ids are in the order they settled.
 */
export async function waitFor(
  ids: readonly string[],
  valueOf: (id: string) => Promise<unknown>,
  numReturns: number,
  timeoutMs: number | undefined,
): Promise<[string[], string[]]> {
  const want = Math.min(numReturns, ids.length);
  const ready: string[] = [];
  const ordered = () => [ready.slice(0, Math.max(want, 0)), ids.filter((id) => !ready.slice(0, want).includes(id))] as [string[], string[]];
  if (want <= 0) return [[], [...ids]];
  await new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    if (timeoutMs !== undefined) timer = setTimeout(done, timeoutMs);
    for (const id of ids) {
      const settle = () => {
        if (ready.length >= want) return;
        ready.push(id);
        if (ready.length >= want) done();
      };
      valueOf(id).then(settle, settle);
    }
  });
  return ordered();
}

/** A value's bytes for the object-store metric: a typed array's or ArrayBuffer's; other values count 0 (an estimate). */
function estimatedBytes(value: unknown): number {
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value.byteLength;
  return 0;
}
