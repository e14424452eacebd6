// Errors of the mesh API. Messages say what went wrong and how to fix it.
import { registerErrorClass } from "../wire/error-codec.ts";
export { SupervisionError, type MeshFailure } from "../runtime/face/supervision.ts";

/** Where a rank is: its rank and coordinates in the mesh that was spawned (not in a slice of it), and that mesh's name. */
export interface RankLocation {
  readonly rank: number;
  readonly coords: Readonly<Record<string, number>>;
  readonly mesh: string;
}

/** "rank 1 {gpus: 1} of mesh counters". */
export function describeRank({ rank, coords, mesh }: RankLocation): string {
  const dims = Object.entries(coords).map(([label, i]) => `${label}: ${i}`);
  return `rank ${rank}${dims.length ? ` {${dims.join(", ")}}` : ""} of mesh ${mesh}`;
}

/**
 * An endpoint threw. `cause` is the remote error, with its stack and cause
 * chain; `rank` and `coords` place the actor in the mesh that was spawned.
 */
export class ActorError extends Error {
  override name = "ActorError";
  readonly rank: number;
  readonly coords: Readonly<Record<string, number>>;

  constructor(
    readonly actor: string,
    readonly endpoint: string,
    at: RankLocation,
    remote: unknown,
  ) {
    const message = remote instanceof Error ? `${remote.name}: ${remote.message}` : String(remote);
    super(`${actor}.${endpoint} failed on ${describeRank(at)}: ${message}`, { cause: remote });
    this.rank = at.rank;
    this.coords = at.coords;
    if (remote instanceof Error && remote.stack) this.stack = `${this.stack}\nRemote stack:\n${remote.stack}`;
  }
}

registerErrorClass(ActorError);
