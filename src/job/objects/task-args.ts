// A task's arguments travel inside the runtime's own messages, so the codec
// names a part it cannot send by its place in those ("arguments of
// Executor.runTask … at [4][0]"), as it names one too large for a message.
// This names it as the user wrote the call.
import { encode, tooLargeArguments } from "../../wire/codec.ts";
import { SerializationError } from "../../wire/errors.ts";
import { ObjectRef } from "./object-ref.ts";

/**
 * For a SerializationError: the same failure named "argument I of NAME: …"
 * (1-based); for a message too large, the call and its largest argument; any
 * other error as it is.
 */
export function nameUnsendableArgument(err: unknown, functionName: string, args: readonly unknown[]): unknown {
  if (!(err instanceof SerializationError)) return tooLargeArguments(err, functionName, args);
  for (let i = 0; i < args.length; i++) {
    try {
      encode(args[i], `argument ${i + 1} of ${functionName}`); // only after a failure: the slow path may be slow
    } catch (named) {
      return named;
    }
  }
  return err;
}

/** Some argument is a ref, to be resolved before the task is sent (a loop: no closure per task, as `some` takes). */
export function hasRef(args: readonly unknown[]): boolean {
  for (const a of args) if (a instanceof ObjectRef) return true;
  return false;
}
