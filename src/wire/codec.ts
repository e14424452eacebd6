// The value codec: msgpack (msgpackr) plus extensions for what msgpack lacks —
// Errors with their classes, stack and cause chains (error-codec.ts), and
// handles registered by higher layers (those not registered in this process
// pass through unchanged: unloaded-handle.ts). Typed arrays of OUT_OF_BAND_BYTES or
// more, and any on a SharedArrayBuffer, are not copied into the msgpack body:
// they travel as separate attachments written straight to the transport (a
// thread's transport passes shared memory by reference) and are decoded as
// views over the received bytes. Extension types come from extension-types.ts.
import { Packr, addExtension } from "./msgpackr.ts";
import { errorFromWire, errorToWire, type ErrorWire } from "./error-codec.ts";
import { MessageTooLargeError, SerializationError, describeUnsendable } from "./errors.ts";
import { claimExtensionType, type ExtensionName } from "./extension-types.ts";
import { NOT_SMALL, smallBody, smallValue } from "./small-values.ts";
import { setHandleReader } from "./unloaded-handle.ts"; // first: each handle's own registration below replaces its pass-through reader

export const OUT_OF_BAND_BYTES = 1024;

/** An encoded value: the msgpack body and the raw buffers it refers to. */
export interface Encoded {
  readonly body: Uint8Array;
  readonly attachments: readonly Uint8Array[];
  /** How many handles (registerHandleType: refs, actor handles, buffers…) it holds, when `encode` made it. */
  readonly handles?: number;
}

/** A class whose instances cross the wire as handles (actor meshes, ports, …). */
export interface HandleType<T> {
  /** Its entry in EXTENSION_TYPES (extension-types.ts). */
  readonly type: ExtensionName;
  readonly Class: abstract new (...args: never[]) => T;
  toWire(value: T): unknown;
  fromWire(data: unknown): T;
}

// Encoding and decoding are synchronous, so the attachment lists of the value
// being processed (and the decoded errors whose classes must be imported) can
// live in module state. msgpackr's extension table is global, so two copies of
// this module (compiled and source: a `fray worker` from dist running a
// TypeScript actor) must share that state too, or one copy's extension reads
// the other's empty attachment list.
interface CodecState {
  outgoing: Uint8Array[] | null;
  incoming: readonly Uint8Array[];
  pending: Error[] | null;
  /** Handles written so far (a count: an encode's own is the difference across it). */
  handles?: number;
}
const STATE = Symbol.for("fray.wire.codecState");
const state: CodecState = ((globalThis as unknown as Record<symbol, CodecState | undefined>)[STATE] ??= { outgoing: null, incoming: [], pending: null });

/** Every typed array class, in the order their wire kind numbers them. */
export const TYPED_ARRAYS = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
] as const;
type TypedArray = ArrayBufferView & { readonly length: number };

// Records (msgpackr's default) keep plain objects apart from Maps; `moreTypes`
// covers Set and BigInts of any size. (-0 arrives as 0: msgpack has one integer zero.)
const packr = new Packr({
  moreTypes: true,
  writeFunction: () => {
    throw new SerializationError("a function");
  },
} as ConstructorParameters<typeof Packr>[0]);

addExtension({
  Class: Error,
  type: claimExtensionType("error"),
  write: errorToWire,
  read: (data: ErrorWire) => errorFromWire(data, state.pending),
});

// Extension data: kind byte, then 0 and the bytes inline, or 1 and a u32 attachment index.
const EXT_TYPED_ARRAY = claimExtensionType("typedArray");
for (const Ctor of TYPED_ARRAYS) {
  const kind = TYPED_ARRAYS.indexOf(Ctor);
  addExtension({
    Class: Ctor as unknown as new () => TypedArray,
    type: EXT_TYPED_ARRAY,
    pack(view: TypedArray): Buffer {
      const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
      const inline = view.byteLength < OUT_OF_BAND_BYTES && !(view.buffer instanceof SharedArrayBuffer);
      if (inline || state.outgoing === null) {
        const out = Buffer.allocUnsafe(2 + bytes.length);
        out[0] = kind;
        out[1] = 0;
        out.set(bytes, 2);
        return out;
      }
      state.outgoing.push(bytes);
      const out = Buffer.allocUnsafe(6);
      out[0] = kind;
      out[1] = 1;
      out.writeUInt32LE(state.outgoing.length - 1, 2);
      return out;
    },
    unpack(data: Buffer): TypedArray {
      const bytes = data[1] === 0 ? data.subarray(2) : state.incoming[data.readUInt32LE(2)];
      return viewAs(TYPED_ARRAYS[data[0]], bytes);
    },
  });
}

/** A typed array over `bytes`, copying only when alignment demands it. */
function viewAs(Ctor: (typeof TYPED_ARRAYS)[number], bytes: Uint8Array): TypedArray {
  if (Ctor === Uint8Array) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = Ctor.BYTES_PER_ELEMENT;
  const aligned = bytes.byteOffset % width === 0 ? bytes : new Uint8Array(bytes); // (Buffer#slice would not copy)
  return new Ctor(aligned.buffer as ArrayBuffer, aligned.byteOffset, aligned.byteLength / width);
}

// Message headers are small plain records: maps without record structures
// encode and decode faster than msgpackr's records for them.
const plain = new Packr({ useRecords: false });

/** Encodes a plain-data record (strings, numbers, arrays, plain objects). */
export function encodePlain(value: unknown): Uint8Array {
  return plain.pack(value);
}

export function decodePlain(bytes: Uint8Array): unknown {
  return plain.unpack(bytes);
}

/** A msgpack array made of already-encoded element bodies (each decodes on its own, so this is valid). */
export function arrayOfEncoded(bodies: readonly Uint8Array[]): Uint8Array {
  const n = bodies.length;
  const head =
    n < 16
      ? Buffer.from([0x90 | n])
      : n < 0x10000
        ? Buffer.from([0xdc, n >> 8, n & 0xff])
        : Buffer.from([0xdd, n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([head, ...bodies]);
}

/** Registers a handle class; its instances are encoded with `toWire` and revived with `fromWire`. */
export function registerHandleType<T>(handle: HandleType<T>): void {
  const type = claimExtensionType(handle.type);
  const read = ([data]: [unknown]) => handle.fromWire(data);
  addExtension({
    Class: handle.Class as unknown as new () => T,
    type,
    write: (v: T) => ((state.handles = (state.handles ?? 0) + 1), [handle.toWire(v)]),
    read,
  });
  setHandleReader(type, read as (data: unknown) => unknown);
}

/**
 * Encodes `value`. Throws SerializationError naming where the unsendable part
 * is (`what` describes the value to the user, e.g. "the reply of Counter.get").
 */
export function encode(value: unknown, what = "value"): Encoded {
  return encodeOr(value, what, (err) => describeUnsendable(value, what) ?? `${what}: ${err.message}`);
}

/**
 * Encodes the arguments of a call to `callee`; an unsendable one is named by
 * its position (1-based, as task arguments are), e.g. "argument 1 of Counter.incr: the function at .cb …".
 */
export function encodeArguments(args: readonly unknown[], callee: string): Encoded {
  return encodeOr(args, `the arguments of ${callee}`, (err) => {
    for (let i = 0; i < args.length; i++) {
      const found = describeUnsendable(args[i], `argument ${i + 1} of ${callee}`);
      if (found) return found;
    }
    return `the arguments of ${callee}: ${err.message}`;
  });
}

/**
 * `err` retold for the call of `callee` with `args` when it is a message too
 * large for its connection: naming the call, its largest argument (1-based)
 * and the setting to raise. Any other error as it is. Encodes the arguments
 * again, one by one: only after the failure.
 */
export function tooLargeArguments(err: unknown, callee: string, args: readonly unknown[]): unknown {
  if (!(err instanceof MessageTooLargeError)) return err;
  const sizes = args.map((a) => {
    const { body, attachments } = encode(a);
    return attachments.reduce((n, b) => n + b.byteLength, body.byteLength);
  });
  const largest = sizes.indexOf(Math.max(...sizes));
  const which = largest < 0 ? "" : `: argument ${largest + 1} of ${callee} is ${sizes[largest]} bytes encoded${args.length > 1 ? ", the largest" : ""}`;
  return new MessageTooLargeError(
    `the arguments of ${callee} make a message of ${err.bytes} bytes to ${err.to}, more than ${err.setting}=${err.limit}${which}. Send it in ` +
      `parts (a RemoteBuffer moves bulk bytes in chunks), or raise ${err.setting} on both sides`,
    err.bytes,
    err.limit,
    err.to,
    err.setting,
  );
}

const NO_ATTACHMENTS: readonly Uint8Array[] = Object.freeze([]);

/** Encodes `value`, or throws a SerializationError with the message `describe` gives for msgpackr's error. */
function encodeOr(value: unknown, what: string, describe: (err: Error) => string): Encoded {
  const small = smallBody(value);
  if (small) return { body: small, attachments: NO_ATTACHMENTS, handles: 0 };
  const attachments: Uint8Array[] = [];
  state.outgoing = attachments;
  const handles = state.handles ?? 0;
  try {
    const body = packr.pack(value);
    return { body, attachments, handles: (state.handles ?? 0) - handles };
  } catch (err) {
    let message: string;
    try {
      message = describe(err as Error);
    } catch {
      message = `${what} is nested too deeply to be sent (${(err as Error).message}); flatten it`; // the search overflowed the stack too
    }
    throw new SerializationError(message, { cause: err });
  } finally {
    state.outgoing = null;
  }
}

/**
 * Decodes a value. Errors in it whose class is a user's, to be imported by the
 * runtime (runtime/code/error-classes.ts), are added to `unresolvedErrors`.
 */
export function decode(body: Uint8Array, attachments: readonly Uint8Array[] = [], unresolvedErrors: Error[] | null = null): unknown {
  const small = smallValue(body);
  if (small !== NOT_SMALL) return small;
  const [previous, previousPending] = [state.incoming, state.pending];
  state.incoming = attachments;
  state.pending = unresolvedErrors;
  try {
    return packr.unpack(body);
  } finally {
    state.incoming = previous;
    state.pending = previousPending;
  }
}

/**
 * One value as a single self-contained byte string (its out-of-band attachments
 * inside), for files and HTTP bodies rather than frames.
 */
export function encodeStandalone(value: unknown, what = "value"): Uint8Array {
  const { body, attachments } = encode(value, what);
  return plain.pack({ body, attachments });
}

export function decodeStandalone(bytes: Uint8Array): unknown {
  const { body, attachments } = plain.unpack(bytes) as { body: Uint8Array; attachments: Uint8Array[] };
  const buffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength); // decode reads Buffers
  return decode(buffer(body), attachments.map(buffer));
}
