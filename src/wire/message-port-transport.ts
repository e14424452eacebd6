// Frames between a parent and its worker thread over a MessagePort. The frames
// sent in one tick are written into one ArrayBuffer, which is transferred, not
// cloned: one copy in all, and no socket system calls. Attachments backed by a
// SharedArrayBuffer are not copied at all: the receiver gets a view of the
// same memory.

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

  constructor(private readonly port: MessagePort) {
    super();
    port.on("message", ({ bytes: data, shared }: Batch) => {
      const bytes = Buffer.from(data);
      const frames: Frame[] = [];
      for (let at = 0; at < bytes.length;) {
        const size = bytes.readUInt32LE(at) + 4;
        frames.push(parseFrame(bytes, at, at + size));
        at += size;
      }
      for (const [f, a, buffer, offset, length] of shared) {
        const attachments = [...frames[f].attachments];
        attachments[a] = new Uint8Array(buffer, offset, length);
        frames[f] = { ...frames[f], attachments };
      }
      for (const frame of frames) this.deliver(frame);
    });
    port.on("close", () => this.reportClose());
  }

  send(frame: Frame): void {
    if (this.closed) return;
    if (this.#pending.length === 0) process.nextTick(() => this.#flush());
    this.#pending.push(frame);
  }

  #flush(): void {
    const frames = this.#pending;
    this.#pending = [];
    if (this.closed || frames.length === 0) return;
    const shared: Shared[] = [];
    const local = frames.map((f, i) => {
      if (!f.attachments.some((a) => a.buffer instanceof SharedArrayBuffer)) return f;
      const attachments = f.attachments.map((a, k) => {
        if (!(a.buffer instanceof SharedArrayBuffer)) return a;
        shared.push([i, k, a.buffer, a.byteOffset, a.byteLength]);
        return EMPTY;
      });
      return { ...f, attachments };
    });
    const sizes = local.map(frameSize);
    const bytes = new ArrayBuffer(sizes.reduce((a, b) => a + b, 0));
    const target = Buffer.from(bytes);
    let at = 0;
    local.forEach((f, i) => {
      writeFrame(f, sizes[i], target, at);
      at += sizes[i];
    });
    this.port.postMessage({ bytes, shared } satisfies Batch, [bytes]);
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
