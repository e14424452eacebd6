// Every msgpack extension type the codec uses, in one table: the codec's own
// and those of handle classes that higher layers register (meshes, ports, refs).
// msgpackr keeps one global table of extension readers, and with `moreTypes`
// it reads some types itself; taking one of those silently breaks the values
// msgpackr encodes with it (0x42 is how it sends BigInts beyond 64 bits).
// Each type is claimed once, at registration, and checked against both.

/** msgpackr's own extension types (2.x, with `moreTypes`), which fray must not take. */
export const MSGPACKR_TYPES: ReadonlyMap<number, string> = new Map([
  [0x00, "undefined"],
  [0x42, "BigInt beyond 64 bits"],
  [0x62, "bundled strings"],
  [0x65, "Error"],
  [0x69, "structured-clone id"],
  [0x70, "structured-clone pointer"],
  [0x72, "record definition"],
  [0x73, "Set"],
  [0x74, "typed array"],
  [0x78, "RegExp"],
  [0xff, "Date (msgpack timestamp, type -1)"],
]);

/** fray's extension types, by what they carry. Handles use 0x40..0x5f. */
export const EXTENSION_TYPES = {
  error: 0x32,
  typedArray: 0x33,
  actorMesh: 0x40,
  port: 0x41,
  actorRef: 0x43,
  objectRef: 0x44,
  remoteBuffer: 0x45,
  distributedArray: 0x46,
  heldValue: 0x47,
} as const;

export type ExtensionName = keyof typeof EXTENSION_TYPES;

/** The handle types (0x40..0x5f): those a higher layer defines and registers. */
export const HANDLE_TYPES = (Object.entries(EXTENSION_TYPES) as Array<[ExtensionName, number]>).filter(([, t]) => t >= 0x40 && t <= 0x5f);

const claimed = new Map<number, ExtensionName>();

/**
 * The type allocated to `name`, claimed for good. Throws if the type is
 * msgpackr's or another entry's, or if `name` was claimed before.
 */
export function claimExtensionType(name: ExtensionName): number {
  const type = EXTENSION_TYPES[name];
  if (type === undefined)
    throw new TypeError(`no msgpack extension type is allocated to '${String(name)}'; add it to EXTENSION_TYPES in src/wire/extension-types.ts`);
  const ours = MSGPACKR_TYPES.get(type);
  if (ours !== undefined) {
    throw new Error(`msgpack extension type 0x${type.toString(16)} of '${name}' is msgpackr's (${ours}); give it a free type in src/wire/extension-types.ts`);
  }
  const holder = claimed.get(type);
  if (holder !== undefined) {
    throw new Error(
      holder === name
        ? `msgpack extension '${name}' (0x${type.toString(16)}) was registered twice`
        : `msgpack extension type 0x${type.toString(16)} of '${name}' is already taken by '${holder}'; give it a free type in src/wire/extension-types.ts`,
    );
  }
  claimed.set(type, name);
  return type;
}
