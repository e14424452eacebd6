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

registerErrorClass(NotExportedError);
registerErrorClass(ConnectionError);

/** A call to an actor (or a mesh's rank) that failed, stopped, or whose process is gone. */
export class SupervisionError extends Error {
  override name = "SupervisionError";
}
registerErrorClass(SupervisionError);
