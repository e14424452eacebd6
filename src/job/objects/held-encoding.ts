// How a holder encodes a held value (held-value.ts): its encoded body and out-of-band attachments in one
// buffer, each part starting at a multiple of 8 bytes. A reader reads the buffer into fresh memory and decodes its
// typed arrays as views of it: no copy after the transfer (a Float64Array at an odd offset would be copied again, as
// the packed standalone encoding placed them), and the holder copies the value's bytes once, into this buffer.
// Layout: the part count n and the n part lengths as float64s (8 bytes each), then the parts, each padded to 8.
import { decode, encode } from "../../wire/codec.ts";

const ALIGN = 8;
const padded = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

/** `value` encoded into one buffer of its own (offset 0, exactly its length), parts aligned; `what` names it in errors. */
export function encodeHeld(value: unknown, what: string): Uint8Array {
  const { body, attachments } = encode(value, what);
  const parts = [body, ...attachments];
  const head = ALIGN * (1 + parts.length);
  const out = new Uint8Array(parts.reduce((at, p) => at + padded(p.byteLength), head));
  const lengths = new DataView(out.buffer);
  lengths.setFloat64(0, parts.length, true);
  let at = head;
  parts.forEach((p, i) => {
    lengths.setFloat64(ALIGN * (1 + i), p.byteLength, true);
    out.set(p, at);
    at += padded(p.byteLength);
  });
  return out;
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
