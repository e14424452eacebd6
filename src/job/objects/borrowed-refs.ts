// The borrower's side of reference counting (ref-counts.ts is the owner's): a process that is not a ref's owner
// counts its ObjectRefs to each value, tells the owner's head it borrows the value when it first holds one, and
// tells it when it dropped the last (found by a FinalizationRegistry; such drops are sent in one message per turn).
// A borrow is announced at once, not batched: the message that follows it from this process (a task's result, an
// actor's reply) reaches the head after it, so the head never frees a value this process was just given. A ref made
// here (a task's `run` or `put`) needs no announcement: the head counts the borrow from the message that makes it.
// A ref of a worker's `put` (../worker/worker-owner.ts) comes marked with a transit pin: the borrow names it, or, if this
// process borrows the value already, a receipt does (batched once per turn); and this process pins each such ref it
// sends on (transit-pins.ts), so the owner keeps the value until the next receiver has counted itself.
import { sendPins } from "./transit-pins.ts";

/** What a borrower tells a ref's owner (a job's HeadActor mesh, or a worker's WorkerOwner: ../objects/object-ref.ts RefHead). */
export interface BorrowedFrom {
  readonly remoteBorrow: { broadcast(ids: string[], tokens?: string[]): void };
  readonly remoteReturn: { broadcast(ids: string[]): void };
  /** A worker owner's only: messages carrying its refs, marked with these tokens, were decoded here. */
  readonly remoteReceived?: { broadcast(tokens: string[]): void };
}

/** This process's refs to one value, and how many borrows of it the owner counts for this process. */
interface Borrow {
  refs: number;
  announced: number;
}

/** Per owner (its HeadActor's mesh id): the owner, and what is borrowed from it. */
const owners = new Map<string, { head: BorrowedFrom; borrows: Map<string, Borrow> }>();
/** Borrows to give back, and receipts of pinned messages to send, per owner, at the end of this turn. */
const returns = new Map<string, string[]>();
const receipts = new Map<string, { head: BorrowedFrom; tokens: string[] }>();
let flushing = false;

const dropped = new FinalizationRegistry<{ owner: string; id: string }>(({ owner, id }) => refDropped(owner, id));

/**
 * Counts `ref` of the head `head` (mesh id `owner`) until it is garbage. `announced`: the owner counts its borrow
 * already (the ref was made here, and the message that made it tells the owner); else a first ref is announced now.
 * `token`: the transit pin of the message it came in (a worker's put), named by the announcement or by a receipt.
 */
export function borrowed<R extends { readonly id: string }>(ref: R, owner: string, head: BorrowedFrom, announced: boolean, token?: string): R {
  let entry = owners.get(owner);
  if (!entry) owners.set(owner, (entry = { head, borrows: new Map() }));
  let borrow = entry.borrows.get(ref.id);
  if (!borrow) entry.borrows.set(ref.id, (borrow = { refs: 0, announced: 0 }));
  borrow.refs++;
  if (announced) borrow.announced++;
  else if (borrow.announced === 0) {
    try {
      if (token === undefined) entry.head.remoteBorrow.broadcast([ref.id]);
      else entry.head.remoteBorrow.broadcast([ref.id], [token]);
      borrow.announced = 1;
      token = undefined;
    } catch {
      // the owner is gone: its values went with it, there is nothing to keep
    }
  }
  if (token !== undefined) {
    let receipt = receipts.get(owner);
    if (!receipt) receipts.set(owner, (receipt = { head, tokens: [] }));
    receipt.tokens.push(token);
    flushSoon();
  }
  dropped.register(ref, { owner, id: ref.id });
  return ref;
}

function refDropped(owner: string, id: string): void {
  const borrows = owners.get(owner)?.borrows;
  const borrow = borrows?.get(id);
  if (!borrows || !borrow || --borrow.refs > 0) return;
  borrows.delete(id);
  if (borrow.announced === 0) return;
  let ids = returns.get(owner);
  if (!ids) returns.set(owner, (ids = []));
  for (let i = 0; i < borrow.announced; i++) ids.push(id);
  flushSoon();
}

function flushSoon(): void {
  if (flushing) return;
  flushing = true;
  setImmediate(flush);
}

function flush(): void {
  flushing = false;
  sendPins(); // before any return: the pins of refs sent on from here, on this process's link to their owners
  for (const { head, tokens } of receipts.values()) {
    try {
      head.remoteReceived?.broadcast(tokens);
    } catch {
      // the owner is gone
    }
  }
  receipts.clear();
  for (const [owner, ids] of returns) {
    const entry = owners.get(owner)!;
    try {
      entry.head.remoteReturn.broadcast(ids);
    } catch {
      // the owner is gone: nothing is kept there any more
    }
    if (entry.borrows.size === 0) owners.delete(owner);
  }
  returns.clear();
}
