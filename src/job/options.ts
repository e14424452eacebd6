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
  /** "ephemeral" (default): the actor ends with its job. "detached" is refused until fray can keep an actor past its job. */
  readonly lifetime?: "ephemeral" | "detached";
  /** What the actor holds for its whole life; default none. */
  readonly resources?: Resources;
  /** `false` is refused until fray has a placement preemption cannot reach. */
  readonly preemptible?: boolean;
  /** 0 (default); other values are refused until fray restarts actors. */
  readonly maxRestarts?: number;
  /** 1 (default): one call at a time; other values are refused for now. */
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
function checkActorName(name: string | undefined): void {
  if (name?.startsWith(RESERVED_NAME_PREFIX)) {
    throw new Error(`actor name '${name}' is reserved: names starting with '${RESERVED_NAME_PREFIX}' belong to the job's own meshes; choose another name`);
  }
}

/**
 * Throws for a reserved name, a malformed option, or an option fray cannot
 * honour yet: an option accepted and ignored would silently give a different
 * actor from the one asked for (one that dies with the job, is never restarted,
 * runs one call at a time, or may be preempted).
 */
export function checkActorOptions(options: ActorOptions): void {
  checkActorName(options.name);
  const { lifetime, preemptible, maxRestarts, maxConcurrency } = options;
  if (lifetime !== undefined && lifetime !== "ephemeral" && lifetime !== "detached") {
    throw new TypeError(`lifetime ${JSON.stringify(lifetime)} is not one of "ephemeral", "detached"`);
  }
  if (lifetime === "detached") {
    throw new Error(`lifetime: "detached" is not supported yet: fray cannot keep an actor after the job that created it; leave lifetime out (the actor ends with its job)`);
  }
  if (preemptible === false) {
    throw new Error("preemptible: false is not supported yet: fray has no placement that preemption cannot reach; leave preemptible out");
  }
  if (maxRestarts !== undefined) {
    if (!Number.isInteger(maxRestarts) || maxRestarts < -1) throw new RangeError(`maxRestarts must be an integer ≥ -1 (-1: no limit), got ${maxRestarts}`);
    if (maxRestarts !== 0) throw new Error(`maxRestarts: ${maxRestarts} is not supported yet: fray does not restart an actor whose process died; leave maxRestarts out (0)`);
  }
  if (maxConcurrency !== undefined) {
    if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1) throw new RangeError(`maxConcurrency must be an integer ≥ 1, got ${maxConcurrency}`);
    if (maxConcurrency !== 1) throw new Error(`maxConcurrency: ${maxConcurrency} is not supported yet: an actor's calls run one at a time; leave maxConcurrency out (1)`);
  }
}
