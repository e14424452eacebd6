// Frames between a parent and its worker thread over a MessagePort. The frames
// sent in one tick are written into one ArrayBuffer, which is transferred, not
// cloned: one copy in all, and no socket system calls. Attachments backed by a
// SharedArrayBuffer are not copied at all: the receiver gets a view of the
// same memory. A thread's transport and its parent's share the thread's
// doorbell (doorbell.ts): the parent rings it after each post, the thread
// counts what it takes.

/** An attachment passed by reference: frame index, attachment index, and its memory. */
type Shared = [frame: number, attachment: number, buffer: SharedArrayBuffer, offset: number, length: number];

interface Batch {
  readonly bytes: ArrayBuffer;
  readonly shared: Shared[];
}
import type { MessagePort } from "node:worker_threads";
import type { Doorbell } from "./doorbell.ts";
import { EMPTY, frameSize, parseFrame, writeFrame, type Frame } from "./frame.ts";
import { TransportBase } from "./transport.ts";

export class MessagePortTransport extends TransportBase {
  #pending: Frame[] = [];
  /** The doorbell this side rings after each post (the parent's), or tells of its queued frames (the thread's). */
  readonly #rings: Doorbell | null;
  readonly #tells: Doorbell | null;

  /** `bell`: the thread's doorbell, and which side of the port this is. */
  constructor(
    private readonly port: MessagePort,
    bell?: { readonly doorbell: Doorbell; readonly side: "parent" | "thread" },
  ) {
    super();
    this.#rings = bell?.side === "parent" ? bell.doorbell : null;
    const tells = (this.#tells = bell?.side === "thread" ? bell.doorbell : null);
    port.on("message", (message: ArrayBuffer | Batch) => {
      tells?.took();
      // A batch with no attachment passed by reference comes as its bare buffer.
      const batch = message instanceof ArrayBuffer ? null : message;
      const bytes = Buffer.from(batch ? batch.bytes : (message as ArrayBuffer));
      let next = 0; // the next of batch.shared, which lists them in frame order
      for (let at = 0, f = 0; at < bytes.length; f++) {
        const size = bytes.readUInt32LE(at) + 4;
        let frame = parseFrame(bytes, at, at + size);
        at += size;
        for (; batch && next < batch.shared.length && batch.shared[next][0] === f; next++) {
          const [, a, buffer, offset, length] = batch.shared[next];
          const attachments = [...frame.attachments];
          attachments[a] = new Uint8Array(buffer, offset, length);
          frame = { ...frame, attachments };
        }
        this.deliver(frame);
      }
    });
    port.on("close", () => this.reportClose());
  }

  send(frame: Frame): void {
    if (this.closed) return;
    if (this.#pending.length === 0) {
      process.nextTick(this.#flushNow);
      if (this.#tells) this.#tells.unsent = true;
    }
    this.#pending.push(frame);
  }

  readonly #flushNow = () => this.#flush();
  /** Each frame's size in a flush, measured once (kept between flushes: no array made per flush). */
  readonly #sizes: number[] = [];

  /** Posts the frames queued so far now (the tick's own flush then finds none). */
  flush(): void {
    this.#flush();
  }

  #flush(): void {
    const frames = this.#pending;
    this.#pending = [];
    if (this.#tells) this.#tells.unsent = false;
    if (this.closed || frames.length === 0) return;
    let shared: Shared[] | null = null;
    const sizes = this.#sizes;
    let total = 0;
    for (let i = 0; i < frames.length; i++) {
      const f = frames[i];
      if (f.attachments.length !== 0 && f.attachments.some((a) => a.buffer instanceof SharedArrayBuffer)) {
        shared ??= [];
        const attachments = [...f.attachments];
        for (let k = 0; k < attachments.length; k++) {
          const a = attachments[k];
          if (!(a.buffer instanceof SharedArrayBuffer)) continue;
          shared.push([i, k, a.buffer, a.byteOffset, a.byteLength]);
          attachments[k] = EMPTY;
        }
        frames[i] = { ...f, attachments }; // `frames` is this flush's own array
      }
      total += sizes[i] = frameSize(frames[i]);
    }
    const bytes = new ArrayBuffer(total);
    const target = Buffer.from(bytes);
    let at = 0;
    for (let i = 0; i < frames.length; i++) {
      writeFrame(frames[i], sizes[i], target, at);
      at += sizes[i];
    }
    sizes.length = 0;
    if (shared === null) this.port.postMessage(bytes, [bytes]);
    else this.port.postMessage({ bytes, shared } satisfies Batch, [bytes]);
    this.#rings?.ring();
  }

  close(): void {
    if (this.closed) return;
    this.port.close();
    this.reportClose();
  }

  setKeepAlive(keep: boolean): void {
    if (keep) this.port.ref();
    else this.port.unref();
  }
}
