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
const NONE: readonly Uint8Array[] = Object.freeze([]);

/** Largest frame the wire format can carry (its length is a u32). */
export const MAX_FRAME_BYTES = 2 ** 32 - 1;

/** The largest frame a transport sends or accepts, and the setting that chose it (for messages). */
export interface FrameLimit {
  readonly bytes: number;
  readonly setting: string;
}

export const WIRE_LIMIT: FrameLimit = { bytes: MAX_FRAME_BYTES, setting: "the wire format's 4 GiB limit" };

export function frameOf(header: Uint8Array, payload?: Encoded): Frame {
  return payload ? { header, payload: payload.body, attachments: payload.attachments } : { header, payload: EMPTY, attachments: NONE };
}

const pad8 = (n: number) => (8 - (n % 8)) % 8;
const PADDING = new Uint8Array(8);

/** Bytes `frame` takes on the wire. */
export function frameSize(frame: Frame): number {
  const attachments = frame.attachments;
  let total = 16 + 4 * attachments.length + frame.header.length + frame.payload.length;
  // Indexed loops here and in writeFrame: a for-of made an iterator per frame where it was not optimised, most frames having no attachment.
  for (let i = 0; i < attachments.length; i++) total += pad8(total) + attachments[i].byteLength;
  return total;
}

/** Writes `frame` (of `size` bytes, from frameSize) into `target` at `offset`, which must be 8-aligned. */
export function writeFrame(frame: Frame, size: number, target: Buffer, offset: number): void {
  const attachments = frame.attachments;
  const n = attachments.length;
  u32(target, offset, size - 4);
  u32(target, offset + 4, frame.header.length);
  u32(target, offset + 8, frame.payload.length);
  u32(target, offset + 12, n);
  let at = offset + 16;
  for (let i = 0; i < n; i++) {
    u32(target, at, attachments[i].byteLength);
    at += 4;
  }
  at = copy(frame.header, target, at);
  at = copy(frame.payload, target, at);
  for (let i = 0; i < n; i++) {
    at += pad8(at - offset);
    target.set(attachments[i], at);
    at += attachments[i].byteLength;
  }
}

// Frames are written one message at a time (a burst of one-way calls is
// thousands of them): plain stores beat Buffer#writeUInt32LE's checks and
// TypedArray#set's set-up for the few bytes of a header.
function u32(target: Uint8Array, at: number, value: number): void {
  target[at] = value;
  target[at + 1] = value >>> 8;
  target[at + 2] = value >>> 16;
  target[at + 3] = value >>> 24;
}

/** Copies `bytes` into `target` at `at`; returns where they end. */
function copy(bytes: Uint8Array, target: Uint8Array, at: number): number {
  const n = bytes.length;
  if (n > 32) target.set(bytes, at);
  else for (let i = 0; i < n; i++) target[at + i] = bytes[i];
  return at + n;
}

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

/** The little-endian u32 at `at` (plain loads, as `u32` writes: also the header forms' fields, header-table.ts and the runtime's header codec). */
export function readU32(bytes: Uint8Array, at: number): number {
  return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16)) + bytes[at + 3] * 0x1000000;
}

/** Parses the complete frame in `bytes[start, end)` (from its length field) into views over `bytes`. */
export function parseFrame(bytes: Buffer, start = 0, end = bytes.length): Frame {
  const headerLen = readU32(bytes, start + 4);
  const payloadLen = readU32(bytes, start + 8);
  const n = readU32(bytes, start + 12);
  let offset = start + 16 + 4 * n;
  if (offset + headerLen + payloadLen > end) throw new FrameError("frame header overruns the frame");
  const header = bytes.subarray(offset, offset + headerLen);
  offset += headerLen;
  const payload = payloadLen ? bytes.subarray(offset, offset + payloadLen) : EMPTY;
  offset += payloadLen;
  if (n === 0) return { header, payload, attachments: NONE };
  const attachments: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const len = bytes.readUInt32LE(start + 16 + 4 * i);
    offset += pad8(offset - start);
    if (offset + len > end) throw new FrameError("frame attachment overruns the frame");
    attachments.push(bytes.subarray(offset, offset + len));
    offset += len;
  }
  return { header, payload, attachments };
}

/**
 * Where a frame's attachments may land, asked when a frame that spans chunks has arrived up to its attachments: given
 * its header, payload and attachment lengths, one destination per attachment (each of that length), or null to have
 * the frame copied into a buffer of its own as usual.
 */
export type Landing = (header: Uint8Array, payload: Uint8Array, lengths: readonly number[]) => readonly Uint8Array[] | null;

/** A frame whose attachments are being copied into their destinations: where each starts in the frame, how far it got. */
interface Landed {
  readonly header: Uint8Array;
  readonly payload: Uint8Array;
  readonly dests: readonly Uint8Array[];
  readonly starts: readonly number[];
  /** The next attachment to fill, and the frame's bytes consumed so far (counted from its length field). */
  next: number;
  at: number;
}

const NO_BYTES = Buffer.alloc(0);

/**
 * Reassembles frames from a byte stream. Frames inside one chunk are sliced
 * without copying; a frame spanning chunks is copied once into a buffer
 * allocated when its length is known, or, when a Landing gives destinations
 * for its attachments, they are copied once, straight into those.
 */
export class FrameDecoder {
  #partial: Buffer | null = null; // fewer than 4 bytes of a length field
  #target: Buffer | null = null;
  #filled = 0;
  #land: Landing | null = null;
  #landed: Landed | null = null;

  /** A frame longer than `limit` is a FrameError before anything is allocated for it. */
  constructor(
    private readonly onFrame: (frame: Frame) => void,
    private readonly limit: FrameLimit = WIRE_LIMIT,
  ) {}

  /** Asks `land` where the attachments of frames that span chunks go. */
  landWith(land: Landing): void {
    this.#land = land;
  }

  push(chunk: Buffer): void {
    this.#push(chunk, false);
  }

  /** Decodes `chunk`, whose memory is used again once this returns: a frame wholly inside it is copied out first. */
  pushTransient(chunk: Buffer): void {
    this.#push(chunk, true);
  }

  /**
   * Where the stream's next bytes belong when they are the rest of an attachment landing in its destination (past any
   * padding before it), so a reader can read them straight there (in-place-reads.ts); null otherwise.
   */
  landingSpace(): Uint8Array | null {
    const landed = this.#landed;
    if (!landed) return null;
    const dest = landed.dests[landed.next];
    const into = landed.at - landed.starts[landed.next];
    return into >= 0 && into < dest.byteLength ? dest.subarray(into) : null;
  }

  /** `n` bytes were read straight into the last landingSpace(): the frame is delivered once its attachments are all in. */
  landedInPlace(n: number): void {
    const landed = this.#landed;
    if (!landed) throw new FrameError("bytes were read into a landing that is not there");
    landed.at += n;
    this.#fill(landed, NO_BYTES, 0);
  }

  #push(chunk: Buffer, transient: boolean): void {
    if (this.#partial) {
      chunk = Buffer.concat([this.#partial, chunk]);
      this.#partial = null;
    }
    let at = 0;
    const end = chunk.length;
    while (at < end) {
      if (this.#landed) {
        at = this.#fill(this.#landed, chunk, at);
        continue;
      }
      const target = this.#target;
      if (target) {
        const n = Math.min(end - at, target.length - this.#filled);
        chunk.copy(target, this.#filled, at, at + n);
        this.#filled += n;
        at += n;
        if (this.#filled === target.length) {
          this.#target = null;
          this.onFrame(parseFrame(target));
        }
        continue;
      }
      if (end - at < 4) {
        this.#partial = transient ? Buffer.from(chunk.subarray(at)) : chunk.subarray(at);
        return;
      }
      const size = chunk.readUInt32LE(at) + 4;
      if (size < 16) throw new FrameError(`peer sent a malformed frame length ${size - 4}`);
      if (size > this.limit.bytes)
        throw new FrameError(`peer announced a frame of ${size} bytes, more than the ${this.limit.bytes} allowed (${this.limit.setting}); disconnected it`);
      if (end - at >= size) {
        this.onFrame(transient ? parseFrame(Buffer.from(chunk.subarray(at, at + size))) : parseFrame(chunk, at, at + size));
        at += size;
        continue;
      }
      const landed = this.#land && this.#landing(chunk, at, size);
      if (landed) {
        this.#landed = landed;
        at += landed.at;
        continue;
      }
      this.#target = Buffer.allocUnsafeSlow(size);
      this.#filled = 0;
    }
  }

  /** The frame of `size` bytes starting at `start` landed in destinations, if its head is all in `chunk` and the Landing gives them. */
  #landing(chunk: Buffer, start: number, size: number): Landed | null {
    const end = chunk.length;
    if (end - start < 16) return null;
    const n = readU32(chunk, start + 12);
    const headerAt = start + 16 + 4 * n;
    if (n === 0 || end < headerAt) return null;
    const headerLen = readU32(chunk, start + 4);
    const payloadLen = readU32(chunk, start + 8);
    let offset = headerAt + headerLen + payloadLen - start;
    if (start + offset > end) return null;
    const lengths: number[] = [];
    const starts: number[] = [];
    for (let i = 0; i < n; i++) {
      lengths.push(readU32(chunk, start + 16 + 4 * i));
      offset += pad8(offset);
      starts.push(offset);
      offset += lengths[i];
    }
    if (offset !== size) return null; // malformed: the copying path says so
    // Copies: the chunk's memory is the stream's, and these few bytes outlive it.
    const header = Buffer.from(chunk.subarray(headerAt, headerAt + headerLen));
    const payload = payloadLen ? Buffer.from(chunk.subarray(headerAt + headerLen, headerAt + headerLen + payloadLen)) : EMPTY;
    const dests = this.#land!(header, payload, lengths);
    if (!dests || dests.length !== n || dests.some((d, i) => d.byteLength !== lengths[i])) return null;
    return { header, payload, dests, starts, next: 0, at: headerAt + headerLen + payloadLen - start };
  }

  /** Copies what `chunk` has from `at` of the landing frame into its destinations; returns where in `chunk` it stopped. */
  #fill(landed: Landed, chunk: Buffer, at: number): number {
    const { dests, starts } = landed;
    while (landed.next < dests.length) {
      const dest = dests[landed.next];
      const into = landed.at - starts[landed.next];
      if (into < 0) {
        const skip = Math.min(-into, chunk.length - at); // padding
        landed.at += skip;
        at += skip;
      } else if (into < dest.byteLength) {
        const n = Math.min(dest.byteLength - into, chunk.length - at);
        dest.set(chunk.subarray(at, at + n), into);
        landed.at += n;
        at += n;
      }
      if (landed.at - starts[landed.next] >= dest.byteLength) landed.next++;
      else if (at === chunk.length) return at;
    }
    this.#landed = null;
    this.onFrame({ header: landed.header, payload: landed.payload, attachments: dests });
    return at;
  }
}
