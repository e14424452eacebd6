// Message headers on the wire: code reads full field names (messages.ts), the
// wire carries short ones, so a one-way call's header stays a few dozen bytes.
// The names are translated here and nowhere else: at the top level of a
// header, field by field, both ways.
//
// A value sent to a port (the reply to a call, a task's result) has a header
// of its own form instead: a kind byte and two u32s, no msgpack either way —
// every call's reply has one, and encoding it as a map cost more than the rest
// of the reply's way through the runtime. Its kind bytes are below 0x80, which
// no msgpack map starts with.
import { decodePlain, encodePlain } from "../../wire/codec.ts";
import { readU32 } from "../../wire/frame.ts";
import type { Call, Header, PortMessage } from "./messages.ts";

/** Full name → wire name; fields not listed travel under their own names. */
const WIRE_NAMES: Readonly<Record<string, string>> = {
  kind: "k",
  endpoint: "m",
  extent: "ext",
  selection: "sel",
  version: "v",
  seq: "q",
  seqs: "qs",
  caller: "o",
  tree: "t",
  treeId: "tid",
  isError: "err",
  errors: "errs",
  maxConcurrency: "mc",
  exportName: "exp",
  stream: "s",
  offset: "off",
  length: "len",
  stagingFile: "shm",
  timeoutMs: "ms",
};
const FULL_NAMES: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(WIRE_NAMES).map(([full, wire]) => [wire, full]));

function rename(from: object, names: Readonly<Record<string, string>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in from) {
    const value = (from as Record<string, unknown>)[key];
    if (value !== undefined) out[names[key] ?? key] = value;
  }
  return out;
}

const PORT_VALUE = 1;
const PORT_ERROR = 2;
const PORT_BYTES = 9;

/** The bytes of `header`: msgpack under wire names, or a port message's own form. */
export function encodeHeader(header: Header): Uint8Array {
  if (header.kind === "port" && isU32(header.id) && isU32(header.rank)) {
    const out = Buffer.allocUnsafe(PORT_BYTES);
    out[0] = header.isError ? PORT_ERROR : PORT_VALUE;
    out.writeUInt32LE(header.id, 1);
    out.writeUInt32LE(header.rank, 5);
    return out;
  }
  return encodePlain(rename(header, WIRE_NAMES));
}

/** A header from the bytes encodeHeader made. */
export function decodeHeader(bytes: Uint8Array): Header {
  const form = bytes[0];
  if (form !== PORT_VALUE && form !== PORT_ERROR) return rename(decodePlain(bytes) as object, FULL_NAMES) as unknown as Header;
  if (bytes.length !== PORT_BYTES) throw new RangeError(`a port message header is ${PORT_BYTES} bytes, not ${bytes.length}`);
  const id = readU32(bytes, 1);
  const rank = readU32(bytes, 5);
  return (form === PORT_ERROR ? { kind: "port", id, rank, isError: true } : { kind: "port", id, rank }) satisfies PortMessage;
}

/**
 * A call's header kept by a connection's header table (wire/header-table.ts)
 * with the reply port id sent beside it: the copy for this call. Only calls
 * with a reply are sent so (call-sender.ts).
 */
export function withReplyId(header: Header, id: number): Header {
  const call = header as Call;
  if (call.kind !== "msg" || !call.reply) throw new RangeError(`a '${header.kind}' header came with a reply port id; only calls that want a reply carry one`);
  return { ...call, reply: { addr: call.reply.addr, id } };
}

function isU32(n: number): boolean {
  return n >>> 0 === n;
}
