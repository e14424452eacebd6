// Message headers on the wire: code reads full field names (messages.ts), the
// wire carries short ones, so a one-way call's header stays a few dozen bytes.
// The names are translated here and nowhere else: at the top level of a
// header, field by field, both ways.
import { encodePlain } from "../../wire/codec.ts";
import type { Header } from "./messages.ts";

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

/** The msgpack bytes of `header`, under wire names. */
export function encodeHeader(header: Header): Uint8Array {
  return encodePlain(rename(header, WIRE_NAMES));
}

/** A header decoded from the wire (a plain object under wire names), under full names. */
export function headerFromWire(decoded: unknown): Header {
  return rename(decoded as object, FULL_NAMES) as unknown as Header;
}
