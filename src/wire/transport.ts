// A Transport carries frames between two endpoints, in order. Implementations:
// SocketTransport (Unix sockets now, TCP/TLS have the same shape) and
// InProcessTransport (a connected pair inside one process).
import type { Frame, Landing } from "./frame.ts";

export interface TransportEvents {
  frame(frame: Frame): void;
  close(error?: Error): void;
}

export interface Transport {
  /**
   * Queues `frame`; frames arrive in the order they were sent. Frames queued in one tick leave together at its end…
   * `sent`, if given, is called once the transport no longer reads the frame's memory, so it may be used again; a
   * transport that hands the memory itself on (in one process) never calls it.
   */
  send(frame: Frame, sent?: () => void): void;
  /** …or now: a sender that batched its own frames (a process's replies of one tick) need not wait for the tick to end. */
  flush(): void;
  /** Receives frames and the close; set once, before any frame can arrive. */
  listen(events: TransportEvents): void;
  close(): void;
  /** Ends the connection as a network fault would (over TCP, a reset the peer sees); reported closed with an error. */
  abort(): void;
  /** Whether the connection crosses a network (TCP), where it can drop while the processes at both ends live on. */
  readonly overNetwork: boolean;
  /** Whether this transport keeps the process alive. */
  setKeepAlive(keep: boolean): void;
  readonly closed: boolean;
  /** Largest frame `send` takes (Infinity where nothing is copied through a byte stream). */
  readonly maxFrameBytes: number;
  /** Where a byte stream lands received attachments (frame.ts, Landing); absent where frames are not copied from a stream. */
  landAttachments?(land: Landing): void;
}

/**
 * What every transport does alike: frames that arrive before `listen` wait
 * for it, and the close is reported once.
 */
export abstract class TransportBase implements Transport {
  #events: TransportEvents | null = null;
  #early: Frame[] = [];
  #closed = false;

  abstract send(frame: Frame, sent?: () => void): void;
  abstract flush(): void;
  abstract close(): void;
  abstract setKeepAlive(keep: boolean): void;

  get maxFrameBytes(): number {
    return Infinity;
  }

  get overNetwork(): boolean {
    return false;
  }

  abort(): void {
    this.close();
  }

  get closed(): boolean {
    return this.#closed;
  }

  listen(events: TransportEvents): void {
    this.#events = events;
    for (const f of this.#early.splice(0)) events.frame(f);
  }

  protected deliver(frame: Frame): void {
    if (this.#events) this.#events.frame(frame);
    else this.#early.push(frame);
  }

  protected reportClose(error?: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#events?.close(error);
  }
}
