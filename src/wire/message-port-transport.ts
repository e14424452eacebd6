// Frames between a parent and its worker thread over a MessagePort. The frames
// sent in one tick are written into one ArrayBuffer, which is transferred, not
// cloned: one copy in all, and no socket system calls.
import type { MessagePort } from "node:worker_threads";
import { frameSize, parseFrame, writeFrame, type Frame } from "./frame.ts";
import type { Transport, TransportEvents } from "./transport.ts";

export class MessagePortTransport implements Transport {
  #events: TransportEvents | null = null;
  #early: Frame[] = [];
  #pending: Frame[] = [];
  #closed = false;

  constructor(private readonly port: MessagePort) {
    port.on("message", (data: ArrayBuffer) => {
      const bytes = Buffer.from(data);
      for (let at = 0; at < bytes.length; ) {
        const size = bytes.readUInt32LE(at) + 4;
        const frame = parseFrame(bytes, at, at + size);
        if (this.#events) this.#events.frame(frame);
        else this.#early.push(frame);
        at += size;
      }
    });
    port.on("close", () => this.#reportClose());
  }

  get closed(): boolean {
    return this.#closed;
  }

  listen(events: TransportEvents): void {
    this.#events = events;
    for (const f of this.#early.splice(0)) events.frame(f);
  }

  send(frame: Frame): void {
    if (this.#closed) return;
    if (this.#pending.length === 0) process.nextTick(() => this.#flush());
    this.#pending.push(frame);
  }

  #flush(): void {
    const frames = this.#pending;
    this.#pending = [];
    if (this.#closed || frames.length === 0) return;
    const sizes = frames.map(frameSize);
    const buffer = new ArrayBuffer(sizes.reduce((a, b) => a + b, 0));
    const target = Buffer.from(buffer);
    let at = 0;
    frames.forEach((f, i) => {
      writeFrame(f, sizes[i], target, at);
      at += sizes[i];
    });
    this.port.postMessage(buffer, [buffer]);
  }

  close(): void {
    if (this.#closed) return;
    this.port.close();
    this.#reportClose();
  }

  setKeepAlive(keep: boolean): void {
    if (keep) this.port.ref();
    else this.port.unref();
  }

  #reportClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#events?.close();
  }
}
