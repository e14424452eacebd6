// A connected pair of transports inside one process. Frames are delivered
// asynchronously and in order, with attachments copied so a sender that
// reuses its buffers cannot change what was sent (the same semantics as a socket).
import type { Frame } from "./frame.ts";
import type { Transport, TransportEvents } from "./transport.ts";

class InProcessEnd implements Transport {
  peer!: InProcessEnd;
  events: TransportEvents | null = null;
  #inbox: Frame[] = [];
  #scheduled = false;
  closed = false;
  readonly maxFrameBytes = Infinity;
  readonly overNetwork = false;

  send(frame: Frame): void {
    if (this.closed) return;
    this.peer.#deliver({ header: frame.header, payload: frame.payload, attachments: frame.attachments.map((a) => a.slice()) });
  }

  listen(events: TransportEvents): void {
    this.events = events;
    this.#drain();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.events?.close();
    this.peer.close();
  }

  abort(): void {
    this.close(); // nothing between the two ends can drop
  }

  setKeepAlive(): void {}

  flush(): void {} // frames are on their way already (a microtask delivers them)

  #deliver(frame: Frame): void {
    this.#inbox.push(frame);
    if (!this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(() => this.#drain());
    }
  }

  #drain(): void {
    this.#scheduled = false;
    if (!this.events) return;
    for (const f of this.#inbox.splice(0)) this.events.frame(f);
  }
}

/** Two transports wired to each other. */
export function inProcessPair(): [Transport, Transport] {
  const a = new InProcessEnd();
  const b = new InProcessEnd();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
