// A Transport carries frames between two endpoints, in order. Implementations:
// SocketTransport (Unix sockets now, TCP/TLS have the same shape) and
// InProcessTransport (a connected pair inside one process).
import type { Frame } from "./frame.ts";

export interface TransportEvents {
  frame(frame: Frame): void;
  close(error?: Error): void;
}

export interface Transport {
  /** Queues `frame`; frames arrive in the order they were sent. */
  send(frame: Frame): void;
  /** Receives frames and the close; set once, before any frame can arrive. */
  listen(events: TransportEvents): void;
  close(): void;
  /** Whether this transport keeps the process alive. */
  setKeepAlive(keep: boolean): void;
  readonly closed: boolean;
}
