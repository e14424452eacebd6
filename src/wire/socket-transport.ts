// Frames over a stream socket (Unix domain now; TCP and TLS sockets have the
// same interface). Writes in one tick are corked into one vectored write.
import type { Socket } from "node:net";
import { FrameDecoder, frameChunks, type Frame } from "./frame.ts";
import type { Transport, TransportEvents } from "./transport.ts";

export class SocketTransport implements Transport {
  #events: TransportEvents | null = null;
  #early: Frame[] = [];
  #corked = false;
  #closed = false;
  #closeReported = false;

  constructor(private readonly socket: Socket) {
    socket.setNoDelay?.(true);
    const decoder = new FrameDecoder((frame) => (this.#events ? this.#events.frame(frame) : this.#early.push(frame)));
    socket.on("data", (chunk: Buffer) => {
      try {
        decoder.push(chunk);
      } catch (err) {
        this.#reportClose(err as Error);
        socket.destroy();
      }
    });
    socket.on("error", (err) => this.#reportClose(err));
    socket.on("close", () => this.#reportClose());
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
    if (!this.#corked) {
      this.#corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.#corked = false;
        this.socket.uncork();
      });
    }
    for (const chunk of frameChunks(frame)) this.socket.write(chunk);
  }

  close(): void {
    if (this.#closed) return;
    this.socket.end();
    this.#reportClose();
  }

  setKeepAlive(keep: boolean): void {
    if (keep) this.socket.ref();
    else this.socket.unref();
  }

  #reportClose(error?: Error): void {
    this.#closed = true;
    if (this.#closeReported) return;
    this.#closeReported = true;
    this.#events?.close(error);
  }
}
