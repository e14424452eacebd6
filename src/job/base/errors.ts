// Errors of the job API (`fray`). Messages say what went wrong and what to do.
import { registerErrorClass } from "../../wire/error-codec.ts";
import { SupervisionError } from "../../mesh/errors.ts";
import { processExitIn } from "../../runtime/face/supervision.ts";

/**
 * `ctx.cancel(ref)` cancelled the task (or stream, or actor call) before it
 * finished: `get` of its ref rejects with this, wherever the ref is read.
 * `taskName` names the task (TaskOptions.name, else its function's name), or
 * the actor method as `Class.method`; the ref (`ObjectRef(id)`) for a task
 * whose submit had not reached its job's head yet.
 */
export class TaskCancelledError extends Error {
  override name = "TaskCancelledError";

  constructor(readonly taskName: string) {
    super(`task ${taskName} was cancelled (ctx.cancel): it has no result; run it again for one`);
  }
}
registerErrorClass(TaskCancelledError);

/** createActor of a name taken, without getIfExists (every backend, and the namespace, say it alike). */
export function namedActorExists(name: string): Error {
  return new Error(`Actor ${name} already exists`);
}

/** A SupervisionError of a call or task whose process ended: how it ended, as fields (SIGKILL: `signal` "SIGKILL"). */
export type ProcessDeathError = SupervisionError & { pid?: number; signal?: string | null; exitCode?: number | null };

/** A SupervisionError saying `message`, caused by `cause`, with how the process whose end `cause` reports ended, as fields. */
export function processDeath(message: string, cause: unknown): ProcessDeathError {
  const error = new SupervisionError(message, { cause });
  const exit = processExitIn(cause);
  return exit ? Object.assign(error, { pid: exit.pid, signal: exit.signal, exitCode: exit.exitCode }) : error;
}
