// Options of tasks and actors, and resource requests.

/** Amounts of each resource: cpu, gpu, memory (bytes) and any custom name. */
export type Resources = Readonly<Record<string, number>>;

export interface TaskOptions {
  readonly name?: string;
  /** What the task needs while it runs; default `{ cpu: 1 }`. */
  readonly resources?: Resources;
  /** How often to run the task again if its worker dies. Default 0. */
  readonly maxRetries?: number;
  /** Environment variables set while the task runs (in its worker). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface ActorOptions {
  /** A name other tasks and actors can find the actor by. */
  readonly name?: string;
  /** With `name`: return the existing actor of that name instead of failing. */
  readonly getIfExists?: boolean;
  readonly lifetime?: "ephemeral" | "detached";
  /** What the actor holds for its whole life; default none. */
  readonly resources?: Resources;
  readonly preemptible?: boolean;
  readonly maxRestarts?: number;
  readonly maxConcurrency?: number;
}

export const TASK_RESOURCES: Resources = { cpu: 1 };

/** Throws a clear error for a malformed request. */
export function checkResources(resources: Resources, what: string): void {
  for (const [name, amount] of Object.entries(resources)) {
    if (typeof amount !== "number" || !Number.isFinite(amount) || amount < 0) {
      throw new RangeError(`${what} requests ${JSON.stringify(amount)} of resource '${name}'; amounts must be non-negative numbers`);
    }
  }
}

/** Actor names starting with this belong to the job's own meshes (its head, its workers' Executors). */
const RESERVED_NAME_PREFIX = "fray-";

/**
 * Throws for an actor name reserved for the job's own meshes: an actor under
 * one could pose as them (one named like the Executors' mesh that failed
 * would be taken for a dead worker).
 */
export function checkActorName(name: string | undefined): void {
  if (name?.startsWith(RESERVED_NAME_PREFIX)) {
    throw new Error(`actor name '${name}' is reserved: names starting with '${RESERVED_NAME_PREFIX}' belong to the job's own meshes; choose another name`);
  }
}
