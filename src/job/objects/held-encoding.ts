// How a holder encodes a held value (held-value.ts): its encoded body and out-of-band attachments in one
// buffer, each part starting at a multiple of 8 bytes. A reader reads the buffer into fresh memory and decodes its
// typed arrays as views of it: no copy after the transfer (a Float64Array at an odd offset would be copied again, as
// the packed standalone encoding placed them), and the holder copies the value's bytes once, into this buffer.
// Layout: the part count n and the n part lengths as float64s (8 bytes each), then the parts, each padded to 8.
// `layoutHeld` gives where each part goes without copying any, so a holder writes them straight into the file it
// keeps the value in (held-bytes.ts); `encodeHeld` copies them into one buffer.
import { decode, encode } from "../../wire/codec.ts";
import { unpinned } from "./transit-pins.ts";

const ALIGN = 8;
const padded = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

/** A held value's encoding before it is copied anywhere: its length, and each part (the head first) with its offset. */
export interface HeldLayout {
  readonly byteLength: number;
  /** How many handles (refs, actor handles, buffers) the value holds: decoded anew, they keep nothing alive meanwhile. */
  readonly handles: number;
  /** Parts in order; bytes between them (padding) are zeros. Views of the value's own memory: copy them before it changes. */
  readonly parts: ReadonlyArray<readonly [offset: number, bytes: Uint8Array]>;
}

/**
 * Where each part of `value`'s encoding goes (throws if the codec cannot encode it; `what` names it then). Refs in it
 * are written without transit pins: held bytes may be read many times or never (nested refs in a held value keep
 * nothing alive while it is not decoded, docs/limits.md).
 */
export function layoutHeld(value: unknown, what: string): HeldLayout {
  const { body, attachments, handles = 0 } = unpinned(() => encode(value, what));
  const parts = [body, ...attachments];
  const headBytes = new Uint8Array(ALIGN * (1 + parts.length));
  const lengths = new DataView(headBytes.buffer);
  lengths.setFloat64(0, parts.length, true);
  const placed: Array<[number, Uint8Array]> = [[0, headBytes]];
  let at = headBytes.byteLength;
  parts.forEach((p, i) => {
    lengths.setFloat64(ALIGN * (1 + i), p.byteLength, true);
    placed.push([at, p]);
    at += padded(p.byteLength);
  });
  return { byteLength: at, handles, parts: placed };
}

/** `layout`'s bytes copied into one buffer of its own (offset 0, exactly its length). */
export function joinHeld(layout: HeldLayout): Uint8Array {
  const out = new Uint8Array(layout.byteLength);
  for (const [at, part] of layout.parts) out.set(part, at);
  return out;
}

/** `value` encoded into one buffer of its own (offset 0, exactly its length), parts aligned; `what` names it in errors. */
export function encodeHeld(value: unknown, what: string): Uint8Array {
  return joinHeld(layoutHeld(value, what));
}

/** The value `bytes` (as encodeHeld made them, at an offset that is a multiple of 8) hold; its typed arrays are views of `bytes`. */
export function decodeHeld(bytes: Uint8Array): unknown {
  const lengths = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = lengths.getFloat64(0, true);
  const parts: Buffer[] = [];
  let at = ALIGN * (1 + count);
  for (let i = 0; i < count; i++) {
    const length = lengths.getFloat64(ALIGN * (1 + i), true);
    parts.push(Buffer.from(bytes.buffer, bytes.byteOffset + at, length)); // decode reads Buffers
    at += padded(length);
  }
  const [body, ...attachments] = parts;
  return decode(body, attachments);
}
