// Frames: the unit every transport carries. A frame is a small header, an
// optional encoded payload, and the payload's out-of-band attachments, each
// 8-byte aligned so typed arrays decode as views without a copy.
//
//   u32 length of the rest | u32 header | u32 payload | u32 n | u32 × n attachment lengths
//   header | payload | pad | attachment 0 | pad | attachment 1 | …
import type { Encoded } from "./codec.ts";
import { FrameError } from "./errors.ts";

export interface Frame {
  readonly header: Uint8Array;
  readonly payload: Uint8Array;
  readonly attachments: readonly Uint8Array[];
}

export const EMPTY = new Uint8Array(0);

/** Largest frame a peer may send; anything bigger is a protocol error, not an allocation. */
export const MAX_FRAME_BYTES = 2 ** 32 - 1;

export function frameOf(header: Uint8Array, payload?: Encoded): Frame {
  return payload ? { header, payload: payload.body, attachments: payload.attachments } : { header, payload: EMPTY, attachments: [] };
}

const pad8 = (n: number) => (8 - (n % 8)) % 8;
const PADDING = new Uint8Array(8);

/** The byte chunks of `frame` in wire order, ready for a vectored write. */
export function frameChunks(frame: Frame): Uint8Array[] {
  const n = frame.attachments.length;
  const prefix = Buffer.allocUnsafe(16 + 4 * n);
  let total = prefix.length - 4 + frame.header.length + frame.payload.length;
  for (let i = 0; i < n; i++) {
    const len = frame.attachments[i].byteLength;
    prefix.writeUInt32LE(len, 16 + 4 * i);
    total += pad8(total + 4) + len;
  }
  if (total > MAX_FRAME_BYTES) throw new FrameError(`frame of ${total} bytes exceeds the 4 GiB limit; split the value`);
  prefix.writeUInt32LE(total, 0);
  prefix.writeUInt32LE(frame.header.length, 4);
  prefix.writeUInt32LE(frame.payload.length, 8);
  prefix.writeUInt32LE(n, 12);
  const chunks: Uint8Array[] = [prefix, frame.header];
  if (frame.payload.length) chunks.push(frame.payload);
  let offset = prefix.length + frame.header.length + frame.payload.length;
  for (const a of frame.attachments) {
    const p = pad8(offset);
    if (p) chunks.push(PADDING.subarray(0, p));
    chunks.push(a);
    offset += p + a.byteLength;
  }
  return chunks;
}

/** Parses one complete frame (starting at its length field) into views over `bytes`. */
export function parseFrame(bytes: Uint8Array): Frame {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = view.getUint32(4, true);
  const payloadLen = view.getUint32(8, true);
  const n = view.getUint32(12, true);
  let offset = 16 + 4 * n;
  if (offset + headerLen + payloadLen > bytes.length) throw new FrameError("frame header overruns the frame");
  const header = bytes.subarray(offset, offset + headerLen);
  offset += headerLen;
  const payload = bytes.subarray(offset, offset + payloadLen);
  offset += payloadLen;
  const attachments: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const len = view.getUint32(16 + 4 * i, true);
    offset += pad8(offset);
    if (offset + len > bytes.length) throw new FrameError("frame attachment overruns the frame");
    attachments.push(bytes.subarray(offset, offset + len));
    offset += len;
  }
  return { header, payload, attachments };
}

/**
 * Reassembles frames from a byte stream. Small frames inside one chunk are
 * sliced without copying; a frame spanning chunks is copied once into a buffer
 * allocated when its length is known.
 */
export class FrameDecoder {
  #chunks: Buffer[] = [];
  #buffered = 0;
  #target: Buffer | null = null;
  #filled = 0;

  constructor(private readonly onFrame: (frame: Frame) => void) {}

  push(chunk: Buffer): void {
    while (chunk.length) {
      if (this.#target) {
        const n = Math.min(chunk.length, this.#target.length - this.#filled);
        chunk.copy(this.#target, this.#filled, 0, n);
        this.#filled += n;
        chunk = chunk.subarray(n);
        if (this.#filled === this.#target.length) {
          const done = this.#target;
          this.#target = null;
          this.onFrame(parseFrame(done));
        }
        continue;
      }
      if (this.#buffered) {
        this.#chunks.push(chunk);
        this.#buffered += chunk.length;
        if (this.#buffered < 4) return;
        chunk = Buffer.concat(this.#chunks, this.#buffered);
        this.#chunks = [];
        this.#buffered = 0;
      }
      if (chunk.length < 4) {
        this.#chunks.push(chunk);
        this.#buffered = chunk.length;
        return;
      }
      const size = chunk.readUInt32LE(0) + 4;
      if (size < 16) throw new FrameError(`peer sent a malformed frame length ${size - 4}`);
      if (chunk.length >= size) {
        this.onFrame(parseFrame(chunk.subarray(0, size)));
        chunk = chunk.subarray(size);
        continue;
      }
      this.#target = Buffer.allocUnsafeSlow(size);
      this.#filled = 0;
    }
  }
}
