// What keeps a value alive at its owner, the job's head (docs/design/object-store.md, "Lifetime and borrowers"), as
// Ray's reference counting does: the ObjectRefs of the owner's own process (the driver's), each counted until it is
// garbage, and the borrowers — every other process holding refs to it (borrowed-refs.ts), counted from the message
// that says so until the message that says it dropped them. When both counts of a value reach zero it is freed
// (`free`: the store forgets it, and the holder of a held value frees its bytes). A value no count ever covered (a
// stream's item not handed out yet) is never freed by this: only a count that falls to zero frees.

/** The counts of the heads in this process, by their HeadActor's mesh id: a ref of one decoded here is its own. */
export const LOCAL_OWNERS = new Map<string, RefCounts>();

const dropped = new FinalizationRegistry<{ counts: RefCounts; id: string }>(({ counts, id }) => counts.ownDropped(id));

export class RefCounts {
  /** How many of this process's ObjectRefs to each value live. */
  readonly #own = new Map<string, number>();
  /** How many borrows of each value other processes announced and have not returned. */
  readonly #borrowed = new Map<string, number>();

  constructor(private readonly free: (id: string) => void) {}

  /** Counts `ref`, an ObjectRef of this process, until it is garbage. */
  track<R extends { readonly id: string }>(ref: R): R {
    this.#own.set(ref.id, (this.#own.get(ref.id) ?? 0) + 1);
    dropped.register(ref, { counts: this, id: ref.id });
    return ref;
  }

  /** @internal One of this process's refs to `id` is garbage. */
  ownDropped(id: string): void {
    const left = (this.#own.get(id) ?? 1) - 1;
    if (left > 0) return void this.#own.set(id, left);
    this.#own.delete(id);
    if (!this.#borrowed.has(id)) this.free(id);
  }

  /** Another process holds refs to each of `ids` (an id once per borrow). */
  borrow(ids: readonly string[]): void {
    for (const id of ids) this.#borrowed.set(id, (this.#borrowed.get(id) ?? 0) + 1);
  }

  /** Another process dropped its refs to each of `ids` (an id once per borrow it returns). */
  returned(ids: readonly string[]): void {
    for (const id of ids) {
      const left = this.#borrowed.get(id);
      if (left === undefined) continue; // a borrow never counted (its message failed): nothing holds the value for it
      if (left > 1) {
        this.#borrowed.set(id, left - 1);
        continue;
      }
      this.#borrowed.delete(id);
      if (!this.#own.has(id)) this.free(id);
    }
  }

  /** How many refs of this process, and how many borrows, keep `id`. */
  countsOf(id: string): { own: number; borrowed: number } {
    return { own: this.#own.get(id) ?? 0, borrowed: this.#borrowed.get(id) ?? 0 };
  }
}

/** For tests: the counts that keep ref `id` at the heads of this process (zeros if none knows it). */
export function refCountsOf(id: string): { own: number; borrowed: number } {
  const total = { own: 0, borrowed: 0 };
  for (const counts of LOCAL_OWNERS.values()) {
    const { own, borrowed } = counts.countsOf(id);
    total.own += own;
    total.borrowed += borrowed;
  }
  return total;
}
