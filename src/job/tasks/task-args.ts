// A task's arguments travel inside the runtime's own messages, so the codec
// names a part it cannot send by its place in those ("arguments of
// Executor.runTask … at [3][0]"). This names it as the user wrote the call.
import { encode } from "../../wire/codec.ts";
import { SerializationError } from "../../wire/errors.ts";

/** For a SerializationError: the same failure named "argument I of NAME: …" (1-based); any other error as it is. */
export function nameUnsendableArgument(err: unknown, functionName: string, args: readonly unknown[]): unknown {
  if (!(err instanceof SerializationError)) return err;
  for (let i = 0; i < args.length; i++) {
    try {
      encode(args[i], `argument ${i + 1} of ${functionName}`); // only after a failure: the slow path may be slow
    } catch (named) {
      return named;
    }
  }
  return err;
}
