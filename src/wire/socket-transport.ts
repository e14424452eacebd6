// Frames over a stream socket (Unix domain now; TCP and TLS sockets have the
// same interface). Frames sent in one tick leave in one write: small frames
// are copied into a batch buffer, large ones (attachments) go by reference.
// A burst that fills a batch buffer is written at once, not at the end of the
// tick, so the peer works on the first frames while later ones are made.
import type { Socket } from "node:net";
import { FrameError } from "./errors.ts";
import { FrameDecoder, frameChunks, frameSize, WIRE_LIMIT, writeFrame, type Frame, type FrameLimit, type Landing } from "./frame.ts";
import { TransportBase } from "./transport.ts";
import type { InPlaceReads } from "./in-place-reads.ts";

/** Frames smaller than this are copied into a batch buffer; larger ones are written by reference. */
const COPY_BELOW_BYTES = 16 * 1024;
const BATCH_BYTES = 64 * 1024;

export class SocketTransport extends TransportBase {
  #scheduled = false;
  #chunks: Uint8Array[] = [];
  #spare: Uint8Array[] = []; // two chunk lists taking turns: none made per write
  /** What to call once chunk i of #chunks is written (the last chunk of a frame sent with `sent`). */
  #sent = new Map<number, () => void>();
  #batch: Buffer | null = null;
  #batchStart = 0;
  #used = 0;
  /** A TCP (or TLS) socket, not a Unix one: the address it is connected to is an IP. */
  readonly #overNetwork: boolean;
  readonly #decoder: FrameDecoder;

  /**
   * Frames over `limit` are refused both ways: a peer announcing one is disconnected, `send` throws. `reads`: the
   * socket was made with its `onread`, so what is read goes to the decoder from there (in-place-reads.ts).
   */
  constructor(
    private readonly socket: Socket,
    readonly limit: FrameLimit = WIRE_LIMIT,
    reads: InPlaceReads | null = null,
  ) {
    super();
    this.#overNetwork = socket.remoteAddress !== undefined;
    socket.setNoDelay?.(true);
    const decoder = (this.#decoder = new FrameDecoder((frame) => this.deliver(frame), limit));
    const failed = (err: Error) => {
      this.reportClose(err);
      socket.destroy();
    };
    reads?.take(decoder, failed);
    // With `reads`, only bytes authentication read past its end come as "data".
    socket.on("data", (chunk: Buffer) => {
      try {
        decoder.push(chunk);
      } catch (err) {
        failed(err as Error);
      }
    });
    socket.on("error", (err) => this.reportClose(err));
    socket.on("close", () => this.reportClose());
    socket.resume(); // authentication left it paused
  }

  /** Received attachments of frames that span reads are copied where `land` says (frame.ts, Landing), not into a buffer of their own. */
  landAttachments(land: Landing): void {
    this.#decoder.landWith(land);
  }

  override get maxFrameBytes(): number {
    return this.limit.bytes;
  }

  send(frame: Frame, sent?: () => void): void {
    if (this.closed) return;
    const size = frameSize(frame);
    if (size > this.limit.bytes)
      throw new FrameError(
        `a frame of ${size} bytes is more than the ${this.limit.bytes} allowed (${this.limit.setting}); send the value in parts or raise the limit`,
      );
    if (!this.#scheduled) {
      this.#scheduled = true;
      process.nextTick(this.#flushSoon); // a method made once: no closure per tick
    }
    if (size >= COPY_BELOW_BYTES) {
      // Big frames (large attachments) go by reference, not copied.
      this.#cutBatch();
      for (const chunk of frameChunks(frame)) this.#chunks.push(chunk);
      if (sent) this.#sent.set(this.#chunks.length - 1, sent); // once its last chunk is written
      return;
    }
    if (!this.#batch || this.#used + size > this.#batch.length) {
      this.#cutBatch();
      if (this.#batch) this.#write(); // a full buffer: on its way now
      this.#batch = Buffer.allocUnsafeSlow(BATCH_BYTES);
      this.#used = this.#batchStart = 0;
    }
    writeFrame(frame, size, this.#batch, this.#used);
    this.#used += size;
    sent?.(); // copied
  }

  /** Moves the frames written into the batch buffer since the last cut to the chunk list. */
  #cutBatch(): void {
    if (this.#batch && this.#used > this.#batchStart) {
      this.#chunks.push(this.#batch.subarray(this.#batchStart, this.#used));
      this.#batchStart = this.#used;
    }
  }

  // The socket keeps what was written; later frames go after it in the same batch buffer.
  readonly #flushSoon = (): void => {
    this.#scheduled = false;
    this.flush();
  };

  /** Writes the frames queued so far now (the tick's own flush then finds none of them). */
  flush(): void {
    this.#cutBatch();
    this.#write();
  }

  /** Writes the chunks cut so far, in order. */
  #write(): void {
    const chunks = this.#chunks;
    if (chunks.length === 0) return;
    this.#chunks = this.#spare;
    const sent = this.#sent;
    try {
      if (this.closed) return;
      if (chunks.length === 1) return void this.socket.write(chunks[0], sent.get(0));
      this.socket.cork();
      for (let i = 0; i < chunks.length; i++) this.socket.write(chunks[i], sent.get(i));
      this.socket.uncork();
    } finally {
      chunks.length = 0;
      this.#spare = chunks;
      if (sent.size > 0) this.#sent = new Map();
    }
  }

  override get overNetwork(): boolean {
    return this.#overNetwork;
  }

  close(): void {
    if (this.closed) return;
    this.socket.end();
    this.reportClose();
  }

  override abort(): void {
    if (this.closed) return;
    const error = Object.assign(new Error("connection reset on purpose (a fault point)"), { code: "ECONNRESET" });
    try {
      this.socket.resetAndDestroy(); // the peer sees a reset, as after `ss -K` or a middlebox's
    } catch {
      this.socket.destroy(); // not a TCP handle (a Unix socket; TLS over one): the peer sees it closed
    }
    this.reportClose(error);
  }

  setKeepAlive(keep: boolean): void {
    if (keep) this.socket.ref();
    else this.socket.unref();
  }
}
