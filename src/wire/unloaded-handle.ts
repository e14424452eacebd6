// A handle whose class this process has not loaded: an actor handle held by a
// named actor whose module imports nothing from `fray`, say. Each layer
// registers the handles it defines (registerHandleType), and the wire may not
// import the layers above it, so what a process can decode would otherwise
// depend on what it happened to import. Instead every type allocated to a
// handle is read here until its module registers it: as an UnloadedHandle that
// keeps what it carried and is written back as the same type, so it passes
// through unchanged and is the real handle wherever its module is loaded.
import { addExtension } from "./msgpackr.ts";
import { HANDLE_TYPES, type ExtensionName } from "./extension-types.ts";

export class UnloadedHandle {
  /** The handle's entry in EXTENSION_TYPES. */
  readonly type: ExtensionName;
  /** @internal What it carried, as decoded here. */
  readonly data: unknown;

  /** @internal */
  constructor(type: ExtensionName, data: unknown) {
    this.type = type;
    this.data = data;
  }

  toString(): string {
    return (
      `${this.type} handle (its class is not loaded in this process, so it can only be passed on: import its module — 'fray' for ` +
      `ObjectRefs and actor handles — in the module that uses it)`
    );
  }
}

// The readers of the handle types registered so far, by type, shared by the copies of fray in a process as msgpackr
// is (msgpackr.ts): a copy loaded later (compiled fray's runtime, loaded into a driver that runs fray's sources to
// revive an error class a worker's runtime threw) installs its pass-through readers for every type, and they must read
// as the copies that registered a type do, or from then on that type (an ObjectRef, say) is an UnloadedHandle here.
const READERS = Symbol.for("fray.wire.handleReaders");
const readers = ((globalThis as unknown as Record<symbol, Map<number, HandleReader> | undefined>)[READERS] ??= new Map());
type HandleReader = (data: unknown) => unknown;

/** Records `read` as the reader of handle type `type` (codec.ts registerHandleType): what every copy's pass-through reader uses. */
export function setHandleReader(type: number, read: HandleReader): void {
  readers.set(type, read);
}

// One class per type, so each is written back as the type it was read as.
for (const [name, type] of HANDLE_TYPES) {
  const Class = class extends UnloadedHandle {};
  const passThrough = (data: unknown) => new Class(name, data);
  addExtension({ Class, type, write: (h: UnloadedHandle) => h.data, read: (data: unknown) => (readers.get(type) ?? passThrough)(data) });
}
