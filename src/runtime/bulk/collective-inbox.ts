// Where the pieces of mesh collectives (allReduce & co.) wait for the rank that
// asks for them. Collectives run inside endpoints, whose actor is busy awaiting
// the collective, so their pieces bypass the actors' mailboxes: the Proc hands
// every "coll" frame to this per-process inbox, keyed by the piece's tag (mesh,
// group, sequence number, round, sender and receiver), and the receiving rank
// takes it. A piece may arrive before its rank asks, or after: either order works.

import type { Encoded } from "../../wire/codec.ts";
import type { HeaderSender } from "../base/messages.ts";
import type { Router } from "../proc/routes.ts";
import { SubsystemKey } from "../proc/subsystems.ts";

type Waiter = (piece: unknown) => void;

export const COLLECTIVES = new SubsystemKey<CollectiveInbox>("collective inbox");

/** Sends the piece `tag` names (encoded) to the process at `addr`, into its inbox. */
export function sendCollectivePiece(proc: HeaderSender, addr: string, tag: string, piece: Encoded): void {
  proc.send(addr, { kind: "coll", tag }, piece);
}

export class CollectiveInbox {
  /** Takes the "coll" frames that `proc` receives. */
  constructor(proc: Router) {
    proc.route("coll", (header, frame) => this.deliver(header.tag, frame));
  }

  #pieces = new Map<string, unknown>();
  /** What to free when an actor stops or dies (its collective groups' outboxes), by actor key. */
  #held = new Map<string, Set<() => void>>();
  #waiters = new Map<string, Waiter>();
  /** Collectives that failed, as [tag prefix, tag suffix]: their late pieces are dropped, not kept forever. */
  #abandoned: Array<[string, string]> = [];

  /** A piece arrived: a Frame from another process, or a value from a rank of this one. */
  deliver(tag: string, piece: unknown): void {
    if (this.#abandoned.some(([prefix, suffix]) => tag.startsWith(prefix) && tag.endsWith(suffix))) return;
    const waiter = this.#waiters.get(tag);
    if (waiter) {
      this.#waiters.delete(tag);
      waiter(piece);
    } else this.#pieces.set(tag, piece);
  }

  /** Calls `got` with the piece tagged `tag`, now or when it arrives. */
  take(tag: string, got: Waiter): void {
    if (this.#pieces.has(tag)) {
      const piece = this.#pieces.get(tag);
      this.#pieces.delete(tag);
      got(piece);
    } else this.#waiters.set(tag, got);
  }

  /** Calls `release` when actor `key` stops or dies; returns a function that cancels this. */
  holdUntilGone(key: string, release: () => void): () => void {
    let set = this.#held.get(key);
    if (!set) this.#held.set(key, (set = new Set()));
    set.add(release);
    return () => void set.delete(release);
  }

  /** Actor `key` stopped or died: frees what its collectives held. */
  releaseOwnedBy(key: string): void {
    const set = this.#held.get(key);
    this.#held.delete(key);
    for (const release of set ?? []) release();
  }

  /** Forgets everything about the tags `prefix…suffix` (a group a rank no longer uses): pieces, waiters, abandoned calls. */
  forget(prefix: string, suffix: string): void {
    const mine = (tag: string) => tag.startsWith(prefix) && tag.endsWith(suffix);
    for (const tag of [...this.#pieces.keys()]) if (mine(tag)) this.#pieces.delete(tag);
    for (const tag of [...this.#waiters.keys()]) if (mine(tag)) this.#waiters.delete(tag);
    this.#abandoned = this.#abandoned.filter(([p, s]) => !(p.startsWith(prefix) && s === suffix));
  }

  /** A collective failed: forgets its pieces and waiters (tags `prefix…suffix`), and drops those still to come. */
  abandon(prefix: string, suffix: string): void {
    const mine = (tag: string) => tag.startsWith(prefix) && tag.endsWith(suffix);
    for (const tag of [...this.#pieces.keys()]) if (mine(tag)) this.#pieces.delete(tag);
    for (const tag of [...this.#waiters.keys()]) if (mine(tag)) this.#waiters.delete(tag);
    this.#abandoned.push([prefix, suffix]);
  }
}
