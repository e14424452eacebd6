// Errors raised by the runtime. Messages say what went wrong and how to fix it.
import { registerErrorClass } from "../../wire/error-codec.ts";

/** An actor class or function that worker processes cannot load. */
export class NotExportedError extends TypeError {
  override name = "NotExportedError";
}

/** A peer process is gone or a connection could not be made. */
export class ConnectionError extends Error {
  override name = "ConnectionError";
}

/**
 * A peer's host does not answer: cut off the network, or down. Its processes may live on, so nothing closes the
 * connection; silence past FRAY_HOST_TIMEOUT_MS, or a dial the network refuses (no route), shows it.
 */
export class UnreachableError extends ConnectionError {
  override name = "UnreachableError";
}

/** Whether `error` or one of its causes says a host could not be reached (an UnreachableError, met here or by a peer). */
export function isUnreachable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 16; e = e.cause, depth++) if (e.name === "UnreachableError") return true;
  return false;
}

registerErrorClass(NotExportedError);
registerErrorClass(ConnectionError);
registerErrorClass(UnreachableError);

/** A call to an actor (or a mesh's rank) that failed, stopped, or whose process is gone. */
export class SupervisionError extends Error {
  override name = "SupervisionError";
}
registerErrorClass(SupervisionError);
