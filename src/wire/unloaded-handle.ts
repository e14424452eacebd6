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

// One class per type, so each is written back as the type it was read as.
for (const [name, type] of HANDLE_TYPES) {
  const Class = class extends UnloadedHandle {};
  addExtension({ Class, type, write: (h: UnloadedHandle) => h.data, read: (data: unknown) => new Class(name, data) });
}
