// Reads of a socket into memory the reader picks (net's `onread` option): the bytes of an attachment landing in its
// destination (frame.ts, Landing) go from the kernel straight there, with no socket buffer allocated per read, no copy
// out of one, and no garbage for the collector. Other bytes are read into one scratch buffer and decoded from it.
// Only a plain socket has `onread` (TLS has not): a TLS connection reads as usual.
import type { OnReadOpts, Socket } from "node:net";

/** What decodes the stream once a transport reads it: FrameDecoder's in-place face. */
export interface InPlaceReader {
  /** Decodes `chunk`, whose memory is read into again after this returns (so nothing may keep a view of it). */
  pushTransient(chunk: Buffer): void;
  /** Where the next bytes belong, if they are the rest of an attachment landing in its destination; null otherwise. */
  landingSpace(): Uint8Array | null;
  /** `n` bytes were read straight into the last landingSpace(). */
  landedInPlace(n: number): void;
}

/** Large enough for many control frames per read, small enough that the part of an attachment read into it is little. */
const SCRATCH_BYTES = 64 * 1024;

export class InPlaceReads {
  readonly #scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  #socket: Socket | null = null;
  #reader: InPlaceReader | null = null;
  /** A decoder's error: the transport closes the connection with it. */
  #failed: ((error: Error) => void) | null = null;
  #landed = 0;

  /** The `onread` option of the socket to make. */
  readonly onread: OnReadOpts = {
    buffer: (): Uint8Array => this.#reader?.landingSpace() ?? this.#scratch,
    callback: (n: number, buf: Uint8Array): boolean => {
      try {
        if (buf !== this.#scratch) {
          this.#landed += n;
          this.#reader!.landedInPlace(n);
        } else if (this.#reader) this.#reader.pushTransient(this.#scratch.subarray(0, n));
        // Before a transport reads (authentication): into the socket's readable side, as a socket without `onread`
        // reads, each chunk its own copy (kept there until a "data" listener, or a read(), takes it).
        else this.#socket?.push(Buffer.from(this.#scratch.subarray(0, n)));
      } catch (err) {
        this.#failed?.(err as Error);
        return false;
      }
      return true;
    },
  };

  /** How many bytes were read straight into their destinations. */
  get landedBytes(): number {
    return this.#landed;
  }

  /** The socket made with `onread` (its readable side has what is read until a transport takes over). */
  attach(socket: Socket): void {
    this.#socket = socket;
  }

  /** From now on what is read goes to `reader`; a decoding error to `failed`. */
  take(reader: InPlaceReader, failed: (error: Error) => void): void {
    this.#reader = reader;
    this.#failed = failed;
  }
}
