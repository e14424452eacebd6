// What keeps a value alive at its owner (docs/design/object-store.md, "Lifetime and borrowers"), as Ray's reference
// counting does: the ObjectRefs of the owner's own process, each counted until it is garbage; the borrowers — every
// other process holding refs to it (borrowed-refs.ts), counted from the message that says so until the message that
// says it dropped them; and, for a worker's `put` (../worker/worker-owner.ts), the transit pins — one per message that
// carries a ref of it and has not been decoded yet (the receiver's borrow or receipt names the pin and drops it).
// When every count of a value reaches zero it is freed (`free`: the owner forgets it, and the holder of a held value
// frees its bytes). A value no count ever covered (a stream's item not handed out yet) is never freed by this: only a
// count that falls to zero frees.

/** The counts of the owners in this process (a job's head, a worker's owner), by their actor's mesh id: a ref of one decoded here is its own. */
export const LOCAL_OWNERS = new Map<string, RefCounts>();

/** How many receipts of pins not made yet a RefCounts remembers (a receiver's receipt may overtake its sender's pin). */
const EARLY_REMEMBERED = 65_536;

const dropped = new FinalizationRegistry<{ counts: RefCounts; id: string }>(({ counts, id }) => counts.ownDropped(id));

export class RefCounts {
  /** How many of this process's ObjectRefs to each value live. */
  readonly #own = new Map<string, number>();
  /** How many borrows of each value other processes announced and have not returned. */
  readonly #borrowed = new Map<string, number>();
  /** The value each transit pin keeps, by its token; and how many pins keep each value. */
  readonly #pins = new Map<string, string>();
  readonly #pinned = new Map<string, number>();
  /** Tokens received before their pin was made (a borrower's pin travels on its own link): the pin is dropped when it comes. */
  readonly #early = new Set<string>();

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
    this.#freeIfUnkept(id);
  }

  /** Another process holds refs to each of `ids` (an id once per borrow); `tokens`: the pins of the messages it decoded them from. */
  borrow(ids: readonly string[], tokens: readonly string[] = []): void {
    for (const id of ids) this.#borrowed.set(id, (this.#borrowed.get(id) ?? 0) + 1);
    this.received(tokens);
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
      this.#freeIfUnkept(id);
    }
  }

  /** A message carrying a ref to `id`, marked `token`, leaves a process: the value is kept until its receiver says it has it. */
  pin(id: string, token: string): void {
    if (this.#early.delete(token)) return; // its receiver counted itself already
    this.#pins.set(token, id);
    this.#pinned.set(id, (this.#pinned.get(id) ?? 0) + 1);
  }

  /** The messages marked `tokens` were decoded, their refs counted (as this process's own, or a borrow): their pins go. */
  received(tokens: readonly string[]): void {
    for (const token of tokens) {
      const id = this.#pins.get(token);
      if (id === undefined) {
        this.#early.add(token);
        if (this.#early.size > EARLY_REMEMBERED) this.#early.delete(this.#early.values().next().value!);
        continue;
      }
      this.#pins.delete(token);
      const left = this.#pinned.get(id)! - 1;
      if (left > 0) this.#pinned.set(id, left);
      else {
        this.#pinned.delete(id);
        this.#freeIfUnkept(id);
      }
    }
  }

  #freeIfUnkept(id: string): void {
    if (!this.#own.has(id) && !this.#borrowed.has(id) && !this.#pinned.has(id)) this.free(id);
  }

  /** How many refs of this process, borrows and transit pins keep `id`. */
  countsOf(id: string): { own: number; borrowed: number; pinned: number } {
    return { own: this.#own.get(id) ?? 0, borrowed: this.#borrowed.get(id) ?? 0, pinned: this.#pinned.get(id) ?? 0 };
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
