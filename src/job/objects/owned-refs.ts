// What a worker's owner (../worker/worker-owner.ts) keeps: the values its process's tasks and actors `put`, and the
// outcomes of the tasks they submit (nested tasks: pending until the head sends the outcome, then the value, the
// HeldValue of a result held by the worker that ran it, or the error), each under its ref's id, with the counts that
// say when one is freed (ref-counts.ts: this process's refs, borrowers, and transit pins). A put larger than
// FRAY_OBJECT_INLINE_BYTES is held as a large result is (kept-values.ts keptPut: in /dev/shm, under
// FRAY_OBJECT_STORE_BYTES) where this worker holds values; any other is kept as it is. Registered by its owner's mesh
// id, so a read in this process (ref-reader.ts) answers here with no message.
import { currentProc } from "../../runtime/face/procs.ts";
import { ObjectFreedError } from "../base/errors.ts";
import { HeldValue } from "./held-value.ts";
import { keptPut } from "./kept-values.ts";
import { kHeldBytes, kHolder, type ObjectRef } from "./object-ref.ts";
import { LOCAL_OWNERS, RefCounts } from "./ref-counts.ts";

/** The worker owners of this process, by their actor's mesh id. */
export const LOCAL_WORKER_REFS = new Map<string, OwnedRefs>();

/** A nested task's entry until its outcome comes: its promise is made when first asked for. */
class Pending {
  /** The ref made for it here, told where a large value is held (its readers are sent there: ../tasks/locality.ts). */
  readonly ref: WeakRef<ObjectRef> | null;
  #promise: Promise<unknown> | null = null;

  constructor(ref: ObjectRef | null = null) {
    this.ref = ref && new WeakRef(ref);
  }

  #resolve: ((value: unknown) => void) | null = null;
  #reject: ((error: unknown) => void) | null = null;

  get promise(): Promise<unknown> {
    return (this.#promise ??= new Promise((resolve, reject) => ((this.#resolve = resolve), (this.#reject = reject))));
  }

  settle(ok: boolean, outcome: unknown): void {
    if (ok) return this.#resolve?.(outcome);
    this.#promise?.catch(() => {}); // reported by whoever awaits it
    this.#reject?.(outcome);
  }
}

export class OwnedRefs {
  readonly #values = new Map<string, unknown>();
  /** Nested tasks' entries that failed: their errors. */
  readonly #errors = new Map<string, unknown>();
  readonly #pending = new Map<string, Pending>();
  readonly counts = new RefCounts((id) => this.#free(id));
  /** Told when an entry is freed (the lineage of a nested task's ref goes with it). */
  onFreed: ((id: string) => void) | null = null;

  /** `id`: the owner's mesh id; `holder`: this worker's index if it holds large values, else -1 (values kept as they are). */
  constructor(
    readonly id: string,
    private readonly holder: number,
  ) {
    LOCAL_OWNERS.set(id, this.counts);
    LOCAL_WORKER_REFS.set(id, this);
  }

  /**
   * Keeps `value` for `ref`, made here: it is freed once this process's refs, its borrowers and its pins are gone.
   * Returns how many bytes it holds as bytes (0: kept as it is).
   */
  put(ref: ObjectRef, value: unknown): number {
    const kept = this.holder >= 0 ? keptPut(ref.id, value, this.holder) : value;
    this.#values.set(ref.id, kept);
    this.counts.track(ref);
    return kept instanceof HeldValue ? kept.buffer.size : 0;
  }

  /** `ref`, made here for a nested task, is pending until its outcome comes (settle); counted as a put's is. */
  expect(ref: ObjectRef): ObjectRef {
    this.#pending.set(ref.id, new Pending(ref));
    return this.counts.track(ref);
  }

  /** Ref `id`'s outcome came: its value (`ok`) or its error. One no ref waits for any more (freed, or not lost) is let go. */
  settle(id: string, ok: boolean, outcome: unknown): void {
    const pending = this.#pending.get(id);
    if (!pending) {
      if (outcome instanceof HeldValue) outcome.free();
      return;
    }
    this.#pending.delete(id);
    (ok ? this.#values : this.#errors).set(id, outcome);
    const ref = outcome instanceof HeldValue ? pending.ref?.deref() : undefined;
    if (ref) [ref[kHeldBytes], ref[kHolder]] = [(outcome as HeldValue).buffer.size, (outcome as HeldValue).worker];
    pending.settle(ok, outcome);
  }

  /** Ref `id`'s value was lost with its holder and its task runs again: it is pending until the new outcome comes. */
  reopen(id: string): void {
    this.#values.delete(id);
    this.#pending.set(id, new Pending());
  }

  /** What is kept for ref `id`: its value, or the HeldValue to read it from; its error; ObjectFreedError once it was freed. */
  kept(id: string): Promise<unknown> {
    if (this.#values.has(id)) return Promise.resolve(this.#values.get(id));
    const pending = this.#pending.get(id);
    if (pending) return pending.promise;
    if (this.#errors.has(id)) return Promise.reject(this.#errors.get(id));
    return Promise.reject(new ObjectFreedError(`ObjectRef(${id})`));
  }

  /** The HeldValue kept for ref `id`, if its value is held as bytes. */
  heldValue(id: string): HeldValue | undefined {
    const value = this.#values.get(id);
    return value instanceof HeldValue ? value : undefined;
  }

  /** The values held as bytes by worker `worker`, with their ref ids. */
  heldBy(worker: number): Array<[string, HeldValue]> {
    const held: Array<[string, HeldValue]> = [];
    for (const [id, value] of this.#values) if (value instanceof HeldValue && value.worker === worker) held.push([id, value]);
    return held;
  }

  /** Whether a read of ref `id` here waits: for its task's outcome, or to read its value from another process. */
  waits(id: string): boolean {
    const value = this.#values.get(id);
    return this.#pending.has(id) || (value instanceof HeldValue && value.buffer.owner !== currentProc().addr);
  }

  /** Whether ref `id` waits for its task's outcome. */
  pending(id: string): boolean {
    return this.#pending.has(id);
  }

  /** For tests and metrics: how many entries are kept (values, errors, pending). */
  get size(): number {
    return this.#values.size + this.#errors.size + this.#pending.size;
  }

  #free(id: string): void {
    const value = this.#values.get(id);
    this.#values.delete(id);
    this.#errors.delete(id);
    const pending = this.#pending.get(id);
    if (pending) {
      this.#pending.delete(id);
      pending.settle(false, new ObjectFreedError(`ObjectRef(${id})`));
    }
    if (value instanceof HeldValue) value.free();
    this.onFreed?.(id);
  }

  /** The owner stops (its job ended): every value is freed, and refs decoded here later are borrows. */
  close(): void {
    LOCAL_OWNERS.delete(this.id);
    LOCAL_WORKER_REFS.delete(this.id);
    for (const id of [...this.#values.keys(), ...this.#errors.keys(), ...this.#pending.keys()]) this.#free(id);
  }
}
