// Repeated headers cross a connection once. A header the sender marks as
// repeatable (a one-way call to the same actor and endpoint, say) is sent in
// full the first time with an id, and as that id alone afterwards; the
// receiver keeps the decoded header. 0xc1 is a byte msgpack never uses, so a
// header starting with it is unambiguous.
import { decodePlain } from "./codec.ts";

const TAG = 0xc1;
/** Distinct repeatable headers per connection; beyond this they are sent in full. */
const MAX_ENTRIES = 1 << 16;

export class HeaderEncoder {
  #refs = new WeakMap<Uint8Array, Uint8Array>();
  #next = 0;

  /** The bytes to put in the frame for `header` (msgpack bytes encoded by the caller). */
  encode(header: Uint8Array, repeatable: boolean): Uint8Array {
    if (!repeatable) return header;
    const ref = this.#refs.get(header);
    if (ref) return ref;
    if (this.#next >= MAX_ENTRIES) return header;
    const id = this.#next++;
    this.#refs.set(header, reference(id, 0));
    const definition = reference(id, header.length);
    definition.set(header, 5);
    return definition;
  }
}

function reference(id: number, extra: number): Buffer {
  const out = Buffer.allocUnsafe(5 + extra);
  out[0] = TAG;
  out.writeUInt32LE(id, 1);
  return out;
}

export class HeaderDecoder<T = unknown> {
  #table = new Map<number, T>();

  /** `fromWire` turns a decoded header into what the receiver reads (once per repeated header). */
  constructor(private readonly fromWire: (decoded: unknown) => T = (decoded) => decoded as T) {}

  decode(bytes: Uint8Array): T {
    if (bytes[0] !== TAG) return this.fromWire(decodePlain(bytes));
    const id = bytes[1] | (bytes[2] << 8) | (bytes[3] << 16) | (bytes[4] << 24);
    if (bytes.length === 5) return this.#table.get(id)!;
    const header = this.fromWire(decodePlain(bytes.subarray(5)));
    this.#table.set(id, header);
    return header;
  }
}
