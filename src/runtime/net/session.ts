// What one link has sent and received, counted, so that a connection over a
// network (TCP), which can drop while both its processes live on (a reset, a
// NAT's timeout), can be made again without losing or repeating a frame — as
// Monarch's channels number, ack and resend their messages. Frames carry no
// number: a connection delivers them in order, so each end counts them, the
// receiver acks its count now and then (one small frame per link and interval,
// not per message), and the sender keeps what is not acked yet. After a dial
// again, each end says how many it received and the other sends the rest.
import { randomBytes } from "node:crypto";
import type { Frame } from "../../wire/frame.ts";

/** Compact the kept frames once this many acked ones lie before the first unacked one. */
const COMPACT_AT = 1024;

export class Session {
  /** This end's name for the link, random: a dial again resumes this session, not another one with the same peer. */
  readonly id = randomBytes(9).toString("base64url");
  /** The peer's name for its end, from its hello (undefined until one came). */
  peer: string | undefined;
  /** Frames received from the peer so far. */
  received = 0;
  /** `received` as last acked to the peer. */
  ackedToPeer = 0;
  #kept: Frame[] = [];
  /** Index in #kept of the first frame not acked yet. */
  #head = 0;
  /** Frames the peer acked: the number of the frame at #kept[#head]. */
  #acked = 0;

  /** Frames sent so far (acked or not). */
  get sent(): number {
    return this.#acked + this.#kept.length - this.#head;
  }

  /**
   * Keeps `frame` until the peer acks it. Its attachments are copied: they may be the program's own arrays, which it
   * may change once the call is sent, and a frame sent again must carry what it carried the first time.
   */
  keep(frame: Frame): void {
    const attachments = frame.attachments;
    if (attachments.length === 0) this.#kept.push(frame);
    else this.#kept.push({ header: frame.header, payload: frame.payload, attachments: attachments.map((a) => new Uint8Array(a)) });
  }

  /** The peer has received the first `count` frames: they need not be kept. False when it claims more than were sent. */
  acked(count: number): boolean {
    if (!Number.isInteger(count) || count > this.sent) return false;
    if (count <= this.#acked) return true;
    this.#head += count - this.#acked;
    this.#acked = count;
    if (this.#head >= COMPACT_AT && this.#head * 2 >= this.#kept.length) {
      this.#kept = this.#kept.slice(this.#head);
      this.#head = 0;
    }
    return true;
  }

  /** The frames not acked yet, in order: what a resumed connection sends again. */
  unacked(): Frame[] {
    return this.#kept.slice(this.#head);
  }

  /** Frames kept now (for tests and metrics). */
  get keptCount(): number {
    return this.#kept.length - this.#head;
  }
}
