// ObjectRef: a handle to a value that a task will produce (or `put` stored).
// The value lives in the job's object store in the driver; a ref can be passed
// to tasks and actors anywhere, which resolve it there.
import { registerHandleType } from "../wire/codec.ts";

export class ObjectRef<T = unknown> {
  declare private readonly _value: T;

  /** @internal */
  constructor(readonly id: string) {}

  toString(): string {
    return `ObjectRef(${this.id})`;
  }
}

/** Ids of refs that were sent somewhere: their values are kept, since their holders are out of sight. */
export const escapedRefs = new Set<string>();

registerHandleType<ObjectRef>({
  type: "objectRef",
  Class: ObjectRef,
  toWire: (ref) => (escapedRefs.add(ref.id), ref.id),
  fromWire: (id) => new ObjectRef(id as string),
});
