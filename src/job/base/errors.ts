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

/**
 * A task's result that stayed in the worker that ran it (larger than FRAY_OBJECT_INLINE_BYTES) is gone with that
 * worker, or its worker's host could not be reached (`unreachable`: cut off the network, or down), and its task has no
 * retries left to make it again: `get` of its ref, or a task given it, rejects with this. `ref` names the ref
 * (`ObjectRef(id)`), `taskName` the task that made it, `worker` the worker that held it, `holder` that worker's address.
 */
export class ObjectLostError extends Error {
  override name = "ObjectLostError";

  constructor(
    readonly ref: string,
    readonly taskName: string,
    readonly worker: number,
    why: string,
    options?: ErrorOptions & { readonly holder?: string; readonly unreachable?: boolean; readonly ownerGone?: boolean },
  ) {
    const at = options?.holder === undefined ? "" : ` at ${options.holder}`;
    const fate = options?.unreachable ? "which could not be reached" : "which is gone";
    const network = options?.unreachable ? "; check the network between this host and the holder's (a cut link, a firewall, a host down)" : "";
    super(
      options?.ownerGone
        ? `${ref}, made in ${worker >= 0 ? `worker ${worker}` : "a worker's process"}${at} (by put, or as the ref of a task submitted there), is lost: ` +
            `its owner, that process, ${options.unreachable ? "could not be reached" : "is gone"} (${why}), and the value or what it knew of ` +
            `it went with it. A ref made in a task lives as long as the process that made it: keep that worker running while its refs are ` +
            `used${network}, or return the value from the task instead of a ref`
        : `${ref}, the result of task ${taskName}, was held by ${holderName(worker)}${at}, ${fate} (${why}): its value is lost. Give the task ` +
            `maxRetries, so that a read of a lost value runs it again on a worker that can be reached${network}; or return values smaller than ` +
            `FRAY_OBJECT_INLINE_BYTES, which the job's driver keeps`,
      options,
    );
  }
}
registerErrorClass(ObjectLostError);

/**
 * A ref whose value its owner freed, because no process it counts held a ref to it any more: `get` of it rejects with
 * this (Ray's ReferenceCountingAssertionError), where it used to wait forever. It happens when the only holder passes
 * refs on without counting them: a process that never loaded fray's job layer (a mesh actor whose module imports
 * nothing from `fray`, in a proc nothing else of the job runs in). `ref` names the ref (`ObjectRef(id)`).
 */
export class ObjectFreedError extends Error {
  override name = "ObjectFreedError";

  constructor(readonly ref: string) {
    super(
      `${ref}'s value was freed: its owner (the driver of the job that made it, or the worker that put it) counted no process still ` +
        `holding a ref to it. A process that has not loaded fray's job layer passes refs on without being counted: import 'fray' in ` +
        `the module of the actor that keeps it, or keep a ref in the job that made it for as long as others may read it`,
    );
  }
}
registerErrorClass(ObjectFreedError);

/** Who holds a value, for errors: `worker N`, or the driver (-1: a `put` in the driver, held in its process). */
export function holderName(worker: number): string {
  return worker >= 0 ? `worker ${worker}` : "the driver";
}

/** What a held value is, for errors: `ObjectRef(id), the result of task T` and where it is held. */
export interface HeldOrigin {
  /** The ref whose value it is (its id). */
  readonly refId: string;
  /** The task that made it. */
  readonly taskName: string;
  /** The worker that holds it (-1: the driver). */
  readonly worker: number;
}

/** A value larger than its process's whole object store (FRAY_OBJECT_STORE_BYTES, `setting`): it cannot be held. */
export function objectTooLarge(origin: HeldOrigin, bytes: number, setting: string): RangeError {
  return new RangeError(
    `ObjectRef(${origin.refId}), the result of task ${origin.taskName} (${bytes} bytes encoded), is larger than the object store of ` +
      `${holderName(origin.worker)} (${setting}), so it cannot be held there: raise FRAY_OBJECT_STORE_BYTES above ${bytes}, or return smaller values ` +
      `(split it across several tasks)`,
  );
}

/** A value found no room in its process's object store because spilling `victim` to `dir` failed with `cause`. */
export function spillFailed(origin: HeldOrigin, victim: HeldOrigin, dir: string, setting: string, cause: unknown): Error {
  const code = (cause as { code?: string } | null)?.code;
  const why = code === "ENOSPC" || code === "EDQUOT" ? " (the disk is full)" : "";
  return new Error(
    `ObjectRef(${origin.refId}), the result of task ${origin.taskName}, cannot be held by ${holderName(origin.worker)}: its object store is full ` +
      `(${setting}) and spilling ObjectRef(${victim.refId}) (task ${victim.taskName}) to ${dir} failed${why}: ${(cause as Error)?.message ?? cause}. ` +
      `Free space there, set FRAY_OBJECT_SPILL_DIR to a writable directory on a disk with room, or raise FRAY_OBJECT_STORE_BYTES; the values ` +
      `held already are kept`,
    { cause },
  );
}

/** A spilled value whose file could not be read back. */
export function restoreFailed(origin: HeldOrigin, path: string, cause: unknown): Error {
  return new Error(
    `ObjectRef(${origin.refId}), the result of task ${origin.taskName}, was spilled by ${holderName(origin.worker)} to ${path}, which cannot be read ` +
      `back: ${(cause as Error)?.message ?? cause}. Keep FRAY_OBJECT_SPILL_DIR's contents while the job runs`,
    { cause },
  );
}
