// Coalesces values sent to the same port in one tick into one frame: the 128
// actors of a process answering one call send one reply frame, not 128. Each
// value is encoded when sent (so later mutation cannot change it); the frame
// carries their bodies as one msgpack array.
import { arrayOfEncoded, encode, type Encoded } from "../wire/codec.ts";
import type { Header, PortRef } from "./messages.ts";

type Send = (addr: string, header: Header, payload: Encoded) => void;

interface Batch {
  readonly ref: PortRef;
  readonly ranks: number[];
  readonly errs: number[];
  readonly bodies: Uint8Array[];
}

export class PortOutbox {
  #batches = new Map<string, Batch>();
  #scheduled = false;

  constructor(private readonly send: Send) {}

  /** Queues an encoded value (or error) for `ref`. Values with attachments go at once, after what is queued. */
  push(ref: PortRef, rank: number, payload: Encoded, isError: boolean): void {
    const key = `${ref.addr}#${ref.id}`;
    if (payload.attachments.length) {
      this.#flushOne(key);
      this.send(ref.addr, isError ? { k: "port", id: ref.id, rank, err: true } : { k: "port", id: ref.id, rank }, payload);
      return;
    }
    let batch = this.#batches.get(key);
    if (!batch) this.#batches.set(key, (batch = { ref, ranks: [], errs: [], bodies: [] }));
    batch.ranks.push(rank);
    batch.errs.push(isError ? 1 : 0);
    batch.bodies.push(payload.body);
    if (!this.#scheduled) {
      this.#scheduled = true;
      process.nextTick(() => this.flush());
    }
  }

  /** Sends everything queued. */
  flush(): void {
    this.#scheduled = false;
    for (const key of [...this.#batches.keys()]) this.#flushOne(key);
  }

  #flushOne(key: string): void {
    const batch = this.#batches.get(key);
    if (!batch) return;
    this.#batches.delete(key);
    const { ref, ranks, errs, bodies } = batch;
    try {
      if (bodies.length === 1) {
        const header: Header = errs[0] ? { k: "port", id: ref.id, rank: ranks[0], err: true } : { k: "port", id: ref.id, rank: ranks[0] };
        this.send(ref.addr, header, { body: bodies[0], attachments: [] });
      } else {
        this.send(ref.addr, { k: "ports", id: ref.id, ranks, errs }, { body: arrayOfEncoded(bodies), attachments: [] });
      }
    } catch (err) {
      // Too big to send (FRAY_MAX_FRAME_BYTES): the receiver gets the reason instead of waiting forever.
      const reason = encode(err);
      for (const rank of ranks) this.send(ref.addr, { k: "port", id: ref.id, rank, err: true }, reason);
    }
  }
}
