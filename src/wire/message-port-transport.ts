// Frames between a parent and its worker thread over a MessagePort. The frames
// sent in one tick are written into one ArrayBuffer, which is transferred, not
// cloned: one copy in all, and no socket system calls. Attachments backed by a
// SharedArrayBuffer are not copied at all: the receiver gets a view of the
// same memory. Either side counts the messages it takes and tells whether it
// has frames queued, and the parent's may call back after each post: hooks an
// upper layer uses to let a thread wait for its next message outside its event
// loop (the job layer's doorbell, job/routes/thread-lane/doorbell.ts).

/** An attachment passed by reference: frame index, attachment index, and its memory. */
type Shared = [frame: number, attachment: number, buffer: SharedArrayBuffer, offset: number, length: number];

interface Batch {
  readonly bytes: ArrayBuffer;
  readonly shared: Shared[];
}
import type { MessagePort } from "node:worker_threads";
import { EMPTY, frameSize, parseFrame, writeFrame, type Frame } from "./frame.ts";
import { TransportBase } from "./transport.ts";

export class MessagePortTransport extends TransportBase {
  #pending: Frame[] = [];
  #taken = 0;

  /** `afterPost`: called after each message this side posts (null: nothing). */
  constructor(
    private readonly port: MessagePort,
    private readonly afterPost: (() => void) | null = null,
  ) {
    super();
    port.on("message", (message: ArrayBuffer | Batch) => {
      this.#taken = (this.#taken + 1) | 0;
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

  /** Messages taken from the port so far, from the first (wrapping as an Int32 does). */
  get taken(): number {
    return this.#taken;
  }

  /** Frames are queued to be posted at the end of this tick. */
  get queued(): boolean {
    return this.#pending.length !== 0;
  }

  send(frame: Frame): void {
    if (this.closed) return;
    if (this.#pending.length === 0) process.nextTick(this.#flushNow);
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
    this.afterPost?.();
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
