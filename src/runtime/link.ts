// A Link is this process's one outgoing path to a peer process. All frames to
// that peer go through it, which is what makes delivery FIFO per
// sender→receiver. Frames sent before the connection exists are queued.
import type { Frame } from "../wire/frame.ts";
import type { Transport } from "../wire/transport.ts";

export class Link {
  #transport: Transport | null = null;
  #queue: Frame[] = [];
  #onAttach: (() => void) | null = null;
  /** Resolves when the connection exists. */
  readonly attached: Promise<void> = new Promise((resolve) => (this.#onAttach = resolve));

  constructor(readonly addr: string) {}

  get connected(): boolean {
    return this.#transport !== null;
  }

  get transport(): Transport | null {
    return this.#transport;
  }

  attach(transport: Transport): void {
    this.#transport = transport;
    this.#onAttach?.();
    for (const frame of this.#queue) transport.send(frame);
    this.#queue = [];
  }

  send(frame: Frame): void {
    if (this.#transport) this.#transport.send(frame);
    else this.#queue.push(frame);
  }

  /** Frames that never left, for a failed connection. */
  drop(): Frame[] {
    const lost = this.#queue;
    this.#queue = [];
    return lost;
  }
}
