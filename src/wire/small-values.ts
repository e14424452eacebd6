// The smallest values — an integer of up to 32 bits, null, a boolean,
// undefined, an empty argument list — are most replies (and task results) and
// many calls' arguments. codec.ts encodes and decodes them here, as msgpack any
// decoder reads (msgpackr's own forms), without msgpackr's per-call set-up,
// which costs several times what they do (~0.25 µs a side).
const FIXINTS = Array.from({ length: 128 }, (_, i) => Buffer.from([i]));
const NIL = Buffer.from([0xc0]);
const FALSE = Buffer.from([0xc2]);
const TRUE = Buffer.from([0xc3]);
const EMPTY_ARRAY = Buffer.from([0x90]);
const UNDEFINED = Buffer.from([0xd4, 0, 0]);

/** What smallValue returns for a body that is not one of these values. */
export const NOT_SMALL = Symbol("not small");

/** The msgpack bytes of a smallest value (constants: never written to), or undefined for any other. */
export function smallBody(value: unknown): Uint8Array | undefined {
  switch (typeof value) {
    case "number":
      return (value & 127) === value && !Object.is(value, -0) ? FIXINTS[value] : integerBody(value);
    case "boolean":
      return value ? TRUE : FALSE;
    case "undefined":
      return UNDEFINED;
    case "object":
      return value === null ? NIL : Array.isArray(value) && value.length === 0 && Object.getPrototypeOf(value) === Array.prototype ? EMPTY_ARRAY : undefined;
  }
  return undefined;
}

/** An integer of up to 32 bits in the shortest msgpack integer form; undefined for any other number. */
function integerBody(n: number): Uint8Array | undefined {
  if (!Number.isInteger(n) || Object.is(n, -0)) return undefined;
  let out: Buffer;
  if (n >= 0) {
    if (n < 0x100) (out = Buffer.allocUnsafe(2))[0] = 0xcc;
    else if (n < 0x10000) (out = Buffer.allocUnsafe(3))[0] = 0xcd;
    else if (n < 0x100000000) (out = Buffer.allocUnsafe(5))[0] = 0xce;
    else return undefined;
    out.writeUIntBE(n, 1, out.length - 1);
    return out;
  }
  if (n >= -32) return Buffer.from([n & 0xff]); // negative fixint
  if (n >= -0x80) (out = Buffer.allocUnsafe(2))[0] = 0xd0;
  else if (n >= -0x8000) (out = Buffer.allocUnsafe(3))[0] = 0xd1;
  else if (n >= -0x80000000) (out = Buffer.allocUnsafe(5))[0] = 0xd2;
  else return undefined;
  out.writeIntBE(n, 1, out.length - 1);
  return out;
}

/** The value of a body smallBody would make (a new array for [], which a receiver may add to), or NOT_SMALL for any other. */
export function smallValue(body: Uint8Array): unknown {
  const b = body[0];
  switch (body.length) {
    case 1:
      if (b < 0x80) return b;
      if (b >= 0xe0) return b - 0x100;
      if (b === 0xc0) return null;
      if (b === 0xc2) return false;
      if (b === 0xc3) return true;
      if (b === 0x90) return [];
      break;
    case 2:
      if (b === 0xcc) return body[1];
      if (b === 0xd0) return (body[1] << 24) >> 24;
      break;
    case 3:
      if (b === 0xcd) return (body[1] << 8) | body[2];
      if (b === 0xd1) return (((body[1] << 8) | body[2]) << 16) >> 16;
      if (b === 0xd4 && body[1] === 0 && body[2] === 0) return undefined;
      break;
    case 5:
      if (b === 0xce) return ((body[1] << 24) | (body[2] << 16) | (body[3] << 8) | body[4]) >>> 0;
      if (b === 0xd2) return (body[1] << 24) | (body[2] << 16) | (body[3] << 8) | body[4];
      break;
  }
  return NOT_SMALL;
}
