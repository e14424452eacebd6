// A Link is this process's one outgoing path to a peer process. All frames to
// that peer go through it, which is what makes delivery FIFO per
// sender→receiver. Frames sent before the connection exists are queued. Over
// a network (TCP) it keeps what it sent until the peer acks it (session.ts),
// so that a connection that dropped can be resumed on a new one.
import type { Encoded } from "../../wire/codec.ts";
import { MessageTooLargeError } from "../../wire/errors.ts";
import { frameOf, frameSize, type Frame } from "../../wire/frame.ts";
import { HeaderDecoder, HeaderEncoder, MAX_TABLE_BYTES } from "../../wire/header-table.ts";
import type { Transport } from "../../wire/transport.ts";
import { config, settingName } from "../base/config.ts";
import { decodeHeader, withReplyId } from "../base/header-codec.ts";
import type { Header } from "../base/messages.ts";
import { Session } from "./session.ts";

export class Link {
  #transport: Transport | null = null;
  #queue: Frame[] = [];
  #onAttach: (() => void) | null = null;
  #headers = new HeaderEncoder();
  /** Once a connection over a network carried it: frames are kept until acked (and #queue is unused). */
  #keeping = false;
  /** What this link sent and received, for resuming it on a new connection. */
  readonly session = new Session();
  /** Decodes what the peer sends, on whichever connection: its header table lives as long as its link does, across them. */
  readonly incoming = new HeaderDecoder<Header>(decodeHeader, withReplyId);
  /** Whether we dialed the connection it uses (or used last): that side dials again when it drops. */
  dialed = false;
  /** While the connection is being made again: the dial's new connection, before the peer answered it. */
  resuming: Transport | null = null;
  /** While waiting for the connection to be made again: the timer that gives up. */
  giveUp: NodeJS.Timeout | null = null;
  /** The peer's process id, from its hello. */
  peerPid: number | undefined;
  /** An ack of what we received is due to be sent (session.ts). */
  ackDue = false;
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

  /** Whether a connection over a network carried it: it keeps what it sends until acked, and can be resumed. */
  get keeping(): boolean {
    return this.#keeping;
  }

  /** Whether the connection is being made again after it dropped (frames sent meanwhile are kept). */
  get reconnecting(): boolean {
    return this.#keeping && this.#transport === null;
  }

  /** `dialed`: we dialed `transport` (else the peer did, or it was handed to us). */
  attach(transport: Transport, dialed: boolean): void {
    this.#transport = transport;
    this.dialed = dialed;
    this.dialError = null;
    if (transport.overNetwork) this.#keeping = true;
    this.#onAttach?.();
    for (const frame of this.#queue) this.#put(transport, frame);
    this.#queue = [];
  }

  /** The connection dropped: frames sent from now on are kept until it is made again. */
  detach(): void {
    this.#transport = null;
  }

  /**
   * Resumes on `transport` (`dialed` by us or not) once the peer said it received the first `received` of our
   * frames: the rest go again, in order, before anything sent later. False when the peer claims more than we sent.
   */
  resume(transport: Transport, received: number, dialed: boolean): boolean {
    if (!this.session.acked(received)) return false;
    this.#transport = transport;
    this.dialed = dialed;
    this.resuming = null;
    for (const frame of this.session.unacked()) transport.send(frame);
    return true;
  }

  #put(transport: Transport, frame: Frame): void {
    if (this.#keeping) this.session.keep(frame);
    transport.send(frame);
  }

  /**
   * Sends a frame; a `repeatable` header (the same bytes object each time)
   * crosses the link once, with `variable` (a u32, a call's reply port id)
   * beside it each time (header-table.ts).
   */
  send(header: Uint8Array, payload?: Encoded, repeatable = false, variable?: number): void {
    this.#checkSize(header, repeatable ? MAX_TABLE_BYTES : 0, payload);
    const frame = frameOf(this.#headers.encode(header, repeatable, variable), payload);
    if (this.#transport) this.#put(this.#transport, frame);
    else if (this.#keeping) this.session.keep(frame);
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
    if (this.giveUp) clearTimeout(this.giveUp);
    this.resuming?.close();
    const lost = this.#queue;
    this.#queue = [];
    return lost;
  }
}
