// Errors of the mesh API. Messages say what went wrong and how to fix it.

/** An endpoint threw. `cause` is the remote error, with its stack and cause chain. */
export class ActorError extends Error {
  override name = "ActorError";

  constructor(readonly actor: string, readonly endpoint: string, readonly rank: number, remote: unknown) {
    const message = remote instanceof Error ? `${remote.name}: ${remote.message}` : String(remote);
    super(`${actor}.${endpoint} failed on rank ${rank}: ${message}`, { cause: remote });
    if (remote instanceof Error && remote.stack) this.stack = `${this.stack}\nRemote stack:\n${remote.stack}`;
  }
}

/** The actor or process a call was waiting on failed or stopped. */
export class SupervisionError extends Error {
  override name = "SupervisionError";
}

/** One failed rank of a mesh, as delivered to its owner's `supervise()`. */
export interface MeshFailure {
  readonly meshName: string;
  readonly rank: number;
  readonly cause: Error;
  readonly report: string;
}
