// Errors of the mesh API. Messages say what went wrong and how to fix it.
import { registerErrorClass } from "../wire/error-codec.ts";
export { SupervisionError, type MeshFailure } from "../runtime/supervision.ts";

/** An endpoint threw. `cause` is the remote error, with its stack and cause chain. */
export class ActorError extends Error {
  override name = "ActorError";

  constructor(readonly actor: string, readonly endpoint: string, readonly rank: number, remote: unknown) {
    const message = remote instanceof Error ? `${remote.name}: ${remote.message}` : String(remote);
    super(`${actor}.${endpoint} failed on rank ${rank}: ${message}`, { cause: remote });
    if (remote instanceof Error && remote.stack) this.stack = `${this.stack}\nRemote stack:\n${remote.stack}`;
  }
}

registerErrorClass(ActorError);
