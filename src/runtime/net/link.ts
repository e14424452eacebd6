// A Link is this process's one outgoing path to a peer process. All frames to
// that peer go through it, which is what makes delivery FIFO per
// sender→receiver. Frames sent before the connection exists are queued.
import type { Encoded } from "../../wire/codec.ts";
import { MessageTooLargeError } from "../../wire/errors.ts";
import { frameOf, frameSize, type Frame } from "../../wire/frame.ts";
import { HeaderEncoder, MAX_TABLE_BYTES } from "../../wire/header-table.ts";
import type { Transport } from "../../wire/transport.ts";
import { config, settingName } from "../base/config.ts";

export class Link {
  #transport: Transport | null = null;
  #queue: Frame[] = [];
  #onAttach: (() => void) | null = null;
  #headers = new HeaderEncoder();
  /** While a dial to the peer retries: why it has not connected yet (cleared once it does). */
  dialError: Error | null = null;
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
    this.dialError = null;
    this.#onAttach?.();
    for (const frame of this.#queue) transport.send(frame);
    this.#queue = [];
  }

  /**
   * Sends a frame; a `repeatable` header (the same bytes object each time)
   * crosses the link once, with `variable` (a u32, a call's reply port id)
   * beside it each time (header-table.ts).
   */
  send(header: Uint8Array, payload?: Encoded, repeatable = false, variable?: number): void {
    this.#checkSize(header, repeatable ? MAX_TABLE_BYTES : 0, payload);
    const frame = frameOf(this.#headers.encode(header, repeatable, variable), payload);
    if (this.#transport) this.#transport.send(frame);
    else this.#queue.push(frame);
  }

  /** Writes what this link's transport queued now, not at the end of the tick (nothing while it is not connected). */
  flush(): void {
    this.#transport?.flush();
  }

  /**
   * Refuses, before anything is queued or sent, a frame the peer would refuse:
   * over a socket the limit is FRAY_MAX_FRAME_BYTES (until the link is up, we
   * do not know whether it will be a socket, so that limit holds then too).
   * A repeatable header counts as sent in full (`tableBytes` more).
   */
  #checkSize(header: Uint8Array, tableBytes: number, payload?: Encoded): void {
    const limit = this.#transport?.maxFrameBytes ?? config.maxFrameBytes;
    if (limit === Infinity) return;
    // Per message, so first a bound without building the frame: at most 7 bytes of padding per attachment.
    let bound = 16 + tableBytes + header.length + (payload?.body.length ?? 0);
    for (const a of payload?.attachments ?? []) bound += 11 + a.byteLength;
    if (bound <= limit) return;
    const size = frameSize(frameOf(header, payload)) + tableBytes;
    if (size > limit) {
      const setting = settingName("maxFrameBytes");
      throw new MessageTooLargeError(
        `a message of ${size} bytes to ${this.addr} is more than ${setting}=${limit}; send the value in parts, or raise ${setting} on both sides`,
        size,
        limit,
        this.addr,
        setting,
      );
    }
  }

  /** Frames that never left, for a failed connection. */
  drop(): Frame[] {
    const lost = this.#queue;
    this.#queue = [];
    return lost;
  }
}
