// What a worker's put owner (../worker/put-owner.ts) keeps: the values its process's tasks and actors `put`, each
// under its ref's id, with the counts that say when one is freed (ref-counts.ts: this process's refs, borrowers, and
// transit pins). A value larger than FRAY_OBJECT_INLINE_BYTES is held as a large result is (kept-values.ts keptPut: in
// /dev/shm, under FRAY_OBJECT_STORE_BYTES) where this worker holds values; any other is kept as it is.
// Registered by its owner's mesh id, so a read in this process (ref-reader.ts) answers here with no message.
import { ObjectFreedError } from "../base/errors.ts";
import { HeldValue } from "./held-value.ts";
import { keptPut } from "./kept-values.ts";
import type { ObjectRef } from "./object-ref.ts";
import { LOCAL_OWNERS, RefCounts } from "./ref-counts.ts";

/** The put owners of this process, by their actor's mesh id. */
export const LOCAL_PUTS = new Map<string, OwnedPuts>();

export class OwnedPuts {
  readonly #values = new Map<string, unknown>();
  readonly counts = new RefCounts((id) => this.#free(id));

  /** `id`: the owner's mesh id; `holder`: this worker's index if it holds large values, else -1 (values kept as they are). */
  constructor(
    readonly id: string,
    private readonly holder: number,
  ) {
    LOCAL_OWNERS.set(id, this.counts);
    LOCAL_PUTS.set(id, this);
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

  /** What is kept for ref `id`: its value, or the HeldValue to read it from; ObjectFreedError once it was freed. */
  kept(id: string): Promise<unknown> {
    if (this.#values.has(id)) return Promise.resolve(this.#values.get(id));
    return Promise.reject(new ObjectFreedError(`ObjectRef(${id})`));
  }

  /** For tests and metrics: how many values are kept. */
  get size(): number {
    return this.#values.size;
  }

  #free(id: string): void {
    const value = this.#values.get(id);
    this.#values.delete(id);
    if (value instanceof HeldValue) value.free();
  }

  /** The owner stops (its job ended): every value is freed, and refs decoded here later are borrows. */
  close(): void {
    LOCAL_OWNERS.delete(this.id);
    LOCAL_PUTS.delete(this.id);
    for (const id of [...this.#values.keys()]) this.#free(id);
  }
}
