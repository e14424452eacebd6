// Repeated headers cross a connection once. A header the sender marks as
// repeatable (a one-way call to the same actor and endpoint, say) is sent in
// full the first time with an id, and as that id alone afterwards; the
// receiver keeps the decoded header. A repeatable header may also carry a
// variable: one u32 that differs each time (a call's reply port), which the
// receiver puts into its copy of the kept header — so a call that waits for a
// reply is not encoded and decoded in full each time either.
//
// Tagged forms start with 0xc1, a byte msgpack never uses, so they are
// unambiguous beside msgpack headers:
//   0xc1 | u8 flags | u32 id (not if INLINE) | u32 variable (if VARIABLE) | msgpack (if DEFINE or INLINE)
import { FrameError } from "./errors.ts";
import { readU32 } from "./frame.ts";

const TAG = 0xc1;
/** The msgpack that follows is kept under the id. */
const DEFINE = 1;
/** A u32 variable follows the id. */
const VARIABLE = 2;
/** No id: the table is full, so the msgpack that follows is used once (with its variable) and not kept. */
const INLINE = 4;
/** Distinct repeatable headers per connection; beyond this they are sent in full. */
const MAX_ENTRIES = 1 << 16;
/** The most bytes the table adds to a header (a definition with a variable). */
export const MAX_TABLE_BYTES = 10;

export class HeaderEncoder {
  #ids = new WeakMap<Uint8Array, number>();
  /** The reference of each header sent without a variable, made once. */
  #refs = new WeakMap<Uint8Array, Uint8Array>();
  #next = 0;

  /**
   * The bytes to put in the frame for `header` (msgpack bytes encoded by the
   * caller). `variable` (a u32, repeatable headers only) goes beside it: the
   * receiver's HeaderDecoder hands the kept header and it to its `vary`.
   */
  encode(header: Uint8Array, repeatable: boolean, variable?: number): Uint8Array {
    if (!repeatable) return header;
    const id = this.#ids.get(header);
    if (variable === undefined) {
      if (id !== undefined) return this.#refs.get(header)!;
      if (this.#next >= MAX_ENTRIES) return header;
      const fresh = this.#define(header);
      this.#refs.set(header, tagged(0, fresh, 0));
      return tagged(DEFINE, fresh, 0, header);
    }
    if (variable >>> 0 !== variable) throw new RangeError(`a header variable must be a u32, not ${variable}`);
    if (id !== undefined) return tagged(VARIABLE, id, variable);
    if (this.#next >= MAX_ENTRIES) return tagged(INLINE | VARIABLE, 0, variable, header);
    return tagged(DEFINE | VARIABLE, this.#define(header), variable, header);
  }

  #define(header: Uint8Array): number {
    const id = this.#next++;
    this.#ids.set(header, id);
    return id;
  }
}

function tagged(flags: number, id: number, variable: number, header?: Uint8Array): Buffer {
  const idBytes = flags & INLINE ? 0 : 4;
  const varBytes = flags & VARIABLE ? 4 : 0;
  const at = 2 + idBytes + varBytes;
  const out = Buffer.allocUnsafe(at + (header?.length ?? 0));
  out[0] = TAG;
  out[1] = flags;
  if (idBytes) out.writeUInt32LE(id, 2);
  if (varBytes) out.writeUInt32LE(variable, 2 + idBytes);
  if (header) out.set(header, at);
  return out;
}

export class HeaderDecoder<T = unknown> {
  #table = new Map<number, T>();

  /**
   * `read` decodes a header sent in full (msgpack, or whatever the layer above
   * encodes headers as), once per repeated header; `vary` puts a header's
   * variable into a copy of the kept header.
   */
  constructor(
    private readonly read: (bytes: Uint8Array) => T,
    private readonly vary: (header: T, variable: number) => T = (header) => header,
  ) {}

  decode(bytes: Uint8Array): T {
    if (bytes[0] !== TAG) return this.read(bytes);
    const flags = bytes[1];
    let at = 2;
    let id = -1;
    if (!(flags & INLINE)) {
      id = readU32(bytes, at);
      at += 4;
    }
    let variable = 0;
    if (flags & VARIABLE) {
      variable = readU32(bytes, at);
      at += 4;
    }
    if (at > bytes.length) throw new FrameError(`peer sent a header of ${bytes.length} bytes, too short for its form (${at} bytes)`);
    let header: T | undefined;
    if (flags & (DEFINE | INLINE)) {
      header = this.read(bytes.subarray(at));
      if (flags & DEFINE) this.#table.set(id, header);
    } else {
      header = this.#table.get(id);
      if (header === undefined) throw new FrameError(`peer referred to header ${id}, which it never sent`);
    }
    return flags & VARIABLE ? this.vary(header, variable) : header;
  }
}
