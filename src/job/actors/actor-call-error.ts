// What the caller of an actor's method reads when the call fails for want of
// the actor (its process died, it was stopped): a SupervisionError that names
// the call as the caller made it — the class, the method (a streamed one too,
// not the endpoint that streams it), the actor's name — and the process and
// signal that ended it, with `pid` and `signal` as fields. The mesh's own
// wording (rank, mesh and endpoint names) stays in `cause`.
import { ActorError, SupervisionError } from "../../mesh/errors.ts";
import { describeProcessExit, processExitIn } from "../../runtime/face/supervision.ts";
import { processDeath } from "../base/errors.ts";

/** An actor call, in the caller's terms. */
export interface ActorCall {
  /** `Class.method`. */
  readonly name: string;
  /** The actor's name, if it has one. */
  readonly actor: string | undefined;
}

/** `err`, the failure of `call`, as its caller reads it (an ActorError: the method's own error). */
export function actorCallError(call: ActorCall, err: unknown): unknown {
  if (err instanceof ActorError) return err.cause;
  if (!(err instanceof SupervisionError)) return err;
  const exit = processExitIn(err);
  const actor = call.actor === undefined ? "its actor" : `the actor '${call.actor}'`;
  const why = exit ? `the ${describeProcessExit(exit)}, where ${actor} ran` : `${actor} is gone (${innermost(err).message})`;
  return processDeath(`${call.name} could not finish: ${why}`, err);
}

/** The first cause of `err`: what went wrong, without the layers that passed it on. */
export function innermost(err: Error): Error {
  let e = err;
  for (let depth = 0; e.cause instanceof Error && depth < 10; depth++) e = e.cause;
  return e;
}
