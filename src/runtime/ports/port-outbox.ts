// The sending side of this process's ports. Coalesces values sent to the same
// port in one tick into one frame: the 128 actors of a process answering one
// call send one reply frame, not 128. Each value is encoded when sent (so later
// mutation cannot change it); the frame carries their bodies as one msgpack array.
// The frames are written as soon as they are made, at the end of the tick that
// sent the values, not at the end of one more (the transports' own batching).
import { arrayOfEncoded, encode, type Encoded } from "../../wire/codec.ts";
import { FrameError } from "../../wire/errors.ts";
import type { Header, PortRef } from "../base/messages.ts";

type Send = (addr: string, header: Header, payload: Encoded) => void;

/** Ports with values queued in one tick beyond which they are found by a Map, not by a look through them. */
const INDEX_ABOVE = 8;
const NONE: readonly Uint8Array[] = Object.freeze([]);

/** A port's values of this tick: most hold one, kept in the first fields; the lists are made for a second. */
interface Batch {
  readonly ref: PortRef;
  readonly rank: number;
  readonly err: 0 | 1;
  readonly body: Uint8Array;
  more: { readonly ranks: number[]; readonly errs: number[]; readonly bodies: Uint8Array[] } | null;
}

export class PortOutbox {
  /** The ports with values queued, in the order of their first value: the order their frames go in. */
  #order: Batch[] = [];
  #spare: Batch[] = [];
  /**
   * The batch of each port id (the first one's, should ports of two processes share an id): no string key made per value.
   * Kept only while more than a few ports have values queued (a Map set and cleared each tick cost more than a look through a few).
   */
  #byId = new Map<number, Batch>();
  #indexed = false;
  #scheduled = false;
  readonly #flushSoon = (): void => this.flush(); // made once: no closure per tick

  /** `flushTo(addr)` writes the frames queued for `addr` at once: the replies of a tick, batched here, need not wait for the end of another. */
  constructor(
    private readonly sendFrame: Send,
    private readonly flushTo: (addr: string) => void = () => {},
  ) {}

  /**
   * Sends a value or error to a port. A value that cannot be sent throws when
   * `strict` (a user's `port.send`); otherwise the receiver gets the
   * SerializationError instead (an endpoint's return value).
   */
  send(ref: PortRef, rank: number, value: unknown, isError: boolean, strict: boolean): void {
    let payload: Encoded;
    let err = isError;
    try {
      payload = encode(value, isError ? "error" : "value");
    } catch (e) {
      if (isError || strict) throw e;
      payload = encode(e);
      err = true;
    }
    try {
      this.push(ref, rank, payload, err);
    } catch (e) {
      if (strict || !(e instanceof FrameError)) throw e;
      this.push(ref, rank, encode(e), true); // too big to send: the receiver learns why
    }
  }

  /** Queues an encoded value (or error) for `ref`. Values with attachments go at once, after what is queued. */
  push(ref: PortRef, rank: number, payload: Encoded, isError: boolean): void {
    let batch = this.#find(ref);
    if (payload.attachments.length) {
      if (batch) this.#flushOne(batch);
      this.sendFrame(ref.addr, portHeader(ref.id, rank, isError), payload);
      return;
    }
    if (!batch) {
      batch = { ref, rank, err: isError ? 1 : 0, body: payload.body, more: null };
      this.#order.push(batch);
      if (this.#indexed) {
        if (!this.#byId.has(ref.id)) this.#byId.set(ref.id, batch);
      } else if (this.#order.length > INDEX_ABOVE) this.#index();
    } else if (batch.more === null) {
      batch.more = { ranks: [batch.rank, rank], errs: [batch.err, isError ? 1 : 0], bodies: [batch.body, payload.body] };
    } else {
      batch.more.ranks.push(rank);
      batch.more.errs.push(isError ? 1 : 0);
      batch.more.bodies.push(payload.body);
    }
    if (!this.#scheduled) {
      this.#scheduled = true;
      process.nextTick(this.#flushSoon);
    }
  }

  /** Sends everything queued. */
  flush(): void {
    this.#scheduled = false;
    const order = this.#order;
    this.#order = this.#spare; // two arrays taking turns: none made per tick
    if (this.#indexed) {
      this.#byId.clear();
      this.#indexed = false;
    }
    for (const batch of order) this.#send(batch);
    let flushed: string | null = null;
    for (const { ref } of order) if (ref.addr !== flushed) this.flushTo((flushed = ref.addr)); // (a repeat finds nothing queued)
    order.length = 0;
    this.#spare = order;
  }

  #find(ref: PortRef): Batch | undefined {
    if (!this.#indexed) {
      const order = this.#order;
      for (let i = 0; i < order.length; i++) if (order[i].ref.id === ref.id && order[i].ref.addr === ref.addr) return order[i];
      return undefined;
    }
    const batch = this.#byId.get(ref.id);
    if (!batch || batch.ref.addr === ref.addr) return batch;
    for (const b of this.#order) if (b.ref.id === ref.id && b.ref.addr === ref.addr) return b; // another process's port of the same id
    return undefined;
  }

  /** Indexes the batches queued by port id: the first of each id. */
  #index(): void {
    for (const b of this.#order) if (!this.#byId.has(b.ref.id)) this.#byId.set(b.ref.id, b);
    this.#indexed = true;
  }

  /** Sends one port's batch now, ahead of the rest. */
  #flushOne(batch: Batch): void {
    this.#order.splice(this.#order.indexOf(batch), 1);
    if (this.#indexed && this.#byId.get(batch.ref.id) === batch) {
      this.#byId.delete(batch.ref.id);
      const other = this.#order.find((b) => b.ref.id === batch.ref.id);
      if (other) this.#byId.set(other.ref.id, other);
    }
    this.#send(batch);
  }

  #send(batch: Batch): void {
    const { ref, more } = batch;
    try {
      if (more === null) {
        this.sendFrame(ref.addr, portHeader(ref.id, batch.rank, batch.err === 1), { body: batch.body, attachments: NONE });
      } else {
        this.sendFrame(ref.addr, { kind: "ports", id: ref.id, ranks: more.ranks, errors: more.errs }, { body: arrayOfEncoded(more.bodies), attachments: NONE });
      }
    } catch (err) {
      // Too big to send (FRAY_MAX_FRAME_BYTES): the receiver gets the reason instead of waiting forever.
      const reason = encode(err);
      for (const rank of more?.ranks ?? [batch.rank]) this.sendFrame(ref.addr, portHeader(ref.id, rank, true), reason);
    }
  }
}

/** The header of one value for port `id`; `isError` left out, not false, when it is a value. */
function portHeader(id: number, rank: number, isError: boolean): Header {
  return isError ? { kind: "port", id, rank, isError: true } : { kind: "port", id, rank };
}
