// Transit pins (docs/design/object-store.md, "Lifetime and borrowers"): a message that carries a ref of a worker's put
// keeps the value at its owner (../worker/worker-owner.ts) until its receiver names the pin's token — in its borrow, or in
// a receipt if it borrows the value already (borrowed-refs.ts). The owner's process pins its own refs itself
// (ref-counts.ts); any other process tells the owner of the pins of the refs it sends on (here), before it can return
// its own borrow of them. Bytes that are not a message (a held value's encoding) carry no pins (`unpinned`).

/** What a borrower tells a worker owner of the refs it sent on. */
export interface PinsTo {
  /** `pairs`: `id, token, …`, each a message that carries a ref to `id`, marked `token`. */
  readonly remotePin?: { broadcast(pairs: string[]): void };
}

/** Whether refs encoded now carry transit pins (`unpinned`). */
let pinning = true;

/** Whether refs encoded now carry transit pins. */
export function pinsMade(): boolean {
  return pinning;
}

/** `encode()` run so that a worker owner's refs in what it encodes carry no transit pin: for bytes not sent as a message. */
export function unpinned<T>(encode: () => T): T {
  const before = pinning;
  pinning = false;
  try {
    return encode();
  } finally {
    pinning = before;
  }
}

/** Pins of refs sent on from here, per owner (`id`, `token` pairs). */
const pins = new Map<string, { head: PinsTo; pairs: string[] }>();

/**
 * A message carrying this process's ref to `id`, a value owned by `head` (mesh id `owner`, a worker's owner), is
 * being encoded: the token its receiver will name, and the owner is told of the pin before any return of this turn
 * (on this process's link to it, so ahead of the return of the borrow the ref holds).
 */
export function pinSent(owner: string, head: PinsTo, id: string, token: string): void {
  let entry = pins.get(owner);
  if (!entry) {
    pins.set(owner, (entry = { head, pairs: [] }));
    if (pins.size === 1) queueMicrotask(sendPins); // not from inside the encode that asked for the pin
  }
  entry.pairs.push(id, token);
}

/** Tells each owner of the pins made here since the last call (at the latest before this turn's returns). */
export function sendPins(): void {
  if (pins.size === 0) return;
  for (const { head, pairs } of pins.values()) {
    try {
      head.remotePin?.broadcast(pairs);
    } catch {
      // the owner is gone: nothing is kept there any more
    }
  }
  pins.clear();
}
