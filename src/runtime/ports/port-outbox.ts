// The sending side of this process's ports. Coalesces values sent to the same
// port in one tick into one frame: the 128 actors of a process answering one
// call send one reply frame, not 128. Each value is encoded when sent (so later
// mutation cannot change it); the frame carries their bodies as one msgpack array.
import { arrayOfEncoded, encode, type Encoded } from "../../wire/codec.ts";
import { FrameError } from "../../wire/errors.ts";
import type { Header, PortRef } from "../base/messages.ts";

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

  constructor(private readonly sendFrame: Send) {}

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
    const key = `${ref.addr}#${ref.id}`;
    if (payload.attachments.length) {
      this.#flushOne(key);
      this.sendFrame(ref.addr, isError ? { kind: "port", id: ref.id, rank, isError: true } : { kind: "port", id: ref.id, rank }, payload);
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
        const header: Header = errs[0] ? { kind: "port", id: ref.id, rank: ranks[0], isError: true } : { kind: "port", id: ref.id, rank: ranks[0] };
        this.sendFrame(ref.addr, header, { body: bodies[0], attachments: [] });
      } else {
        this.sendFrame(ref.addr, { kind: "ports", id: ref.id, ranks, errors: errs }, { body: arrayOfEncoded(bodies), attachments: [] });
      }
    } catch (err) {
      // Too big to send (FRAY_MAX_FRAME_BYTES): the receiver gets the reason instead of waiting forever.
      const reason = encode(err);
      for (const rank of ranks) this.sendFrame(ref.addr, { kind: "port", id: ref.id, rank, isError: true }, reason);
    }
  }
}
