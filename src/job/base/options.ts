// Options of tasks, streams and actors, and resource requests.
import { config } from "./settings.ts";

/** Amounts of each resource: cpu, gpu, memory (bytes) and any custom name. */
export type Resources = Readonly<Record<string, number>>;

export interface TaskOptions {
  readonly name?: string;
  /** What the task needs while it runs; default `{ cpu: 1 }`. */
  readonly resources?: Resources;
  /** How often to run the task again if its worker dies; -1: no limit. Default 0. */
  readonly maxRetries?: number;
  /** Environment variables set while the task runs (in its worker). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Options of a task with several returns (`createTask(fn, args, { numReturns: n })`): the task returns an array of
 * exactly `n` values and the call gives `n` refs, one per value, each held and released on its own.
 */
export interface MultipleReturnsOptions extends TaskOptions {
  /** How many values the task returns (as an array); a whole number, at least 1. */
  readonly numReturns: number;
}

/** Options of a stream: `ctx.createStreamingTask(fn, args, options)`, `handle.method.options(options).remoteStreaming(...args)`. */
export interface StreamOptions {
  /**
   * How many items the generator may yield ahead of its reader: at its next `yield` it waits until the reader has
   * read more. A whole number, at least 1, or `Infinity` (no limit, as in Ray). Default FRAY_STREAM_WINDOW (no limit).
   */
  readonly window?: number;
}

/** Options of a streaming task (`ctx.createStreamingTask`): a task's (name, resources, maxRetries, env) and its stream's `window`. */
export interface StreamingTaskOptions extends TaskOptions, StreamOptions {}

/** The window of a stream of `what` (a task or Class.method): its option, checked, or the setting's. */
export function streamWindow(options: StreamOptions, what: string): number {
  const { window } = options;
  if (window === undefined) return config.streamWindow === 0 ? Infinity : config.streamWindow;
  if (typeof window === "number" && (window === Infinity || (Number.isInteger(window) && window >= 1))) return window;
  const got = typeof window === "number" ? String(window) : JSON.stringify(window);
  throw new RangeError(
    `the window ${got} of the stream of ${what} is not a whole number of items, at least 1, or Infinity (no limit); give e.g. { window: 16 }`,
  );
}

export interface ActorOptions {
  /** A name other tasks, actors and (in a namespace) other jobs can find the actor by. */
  readonly name?: string;
  /** With `name`: return the existing actor of that name instead of failing. */
  readonly getIfExists?: boolean;
  /**
   * "ephemeral" (default): the actor ends with the job (driver) that created it.
   * "detached": it outlives its creator, in the namespace service, until `killActor(name)`;
   * needs a name and a namespace (a cluster job, or `createJobContext(kind, { namespace })`).
   */
  readonly lifetime?: "ephemeral" | "detached";
  /** What the actor holds for its whole life; default none. */
  readonly resources?: Resources;
  /** `false`: run it where preemption cannot reach it — a process of the namespace service's host (the driver's host without a namespace). */
  readonly preemptible?: boolean;
  /** How often the actor is started again (same args, new process) after its process dies; -1: no limit. Default 0. */
  readonly maxRestarts?: number;
  /** With maxRestarts: how often a call in flight when the actor died is sent again to the restarted actor; -1: no limit. Default 0. */
  readonly maxTaskRetries?: number;
  /** How many calls of the actor may run at once (async methods interleave at their awaits). Default 1. */
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

const TASK_OPTION_KEYS = ["name", "resources", "maxRetries", "env"];

/** Throws for an option a task (`streaming`: a streaming task, which takes `window` too) does not have, or a malformed one. */
export function checkTaskOptions(options: TaskOptions & StreamOptions & { numReturns?: number }, what: string, streaming: boolean): void {
  if (typeof options !== "object" || options === null) throw new TypeError(`the options of ${what} must be an object, got ${String(options)}`);
  const known = streaming ? [...TASK_OPTION_KEYS, "window"] : [...TASK_OPTION_KEYS, "numReturns"];
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      const hint =
        key === "window" ? " (a stream's option: use createStreamingTask)" : key === "numReturns" ? " (a stream yields its values one ref each)" : "";
      throw new TypeError(`${what} has no option '${key}'${hint}; its options are ${known.join(", ")}`);
    }
  }
  const { name, maxRetries, env, resources } = options;
  if (name !== undefined && typeof name !== "string") throw new TypeError(`the name of ${what} must be a string, got ${JSON.stringify(name)}`);
  if (maxRetries !== undefined && (!Number.isInteger(maxRetries) || maxRetries < -1)) {
    throw new RangeError(`maxRetries of ${what} must be an integer ≥ -1 (-1: no limit), got ${maxRetries}`);
  }
  if (env !== undefined && (typeof env !== "object" || env === null || Object.values(env).some((v) => typeof v !== "string"))) {
    throw new TypeError(`env of ${what} must map variable names to strings, got ${JSON.stringify(env)}`);
  }
  if (resources !== undefined) checkResources(resources, what);
  const { numReturns } = options;
  if (numReturns !== undefined && (typeof numReturns !== "number" || !Number.isInteger(numReturns) || numReturns < 1)) {
    const got = typeof numReturns === "number" ? numReturns : JSON.stringify(numReturns);
    throw new RangeError(`numReturns of ${what} must be a whole number, at least 1 (how many values the task returns, as an array), got ${got}`);
  }
}

/** How often a task may run again after its worker died: maxRetries, -1 meaning no limit. */
export function retriesOf(options: TaskOptions): number {
  const retries = options.maxRetries ?? 0;
  return retries === -1 ? Infinity : retries;
}

/** How many values a task returns, each a ref of its own (numReturns); 0: one value, its own ref's. */
export function returnsOf(options: TaskOptions): number {
  return (options as Partial<MultipleReturnsOptions>).numReturns ?? 0;
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

/** Throws for a reserved name or a malformed option; whether the backend can honour the rest is its own check. */
export function checkActorOptions(options: ActorOptions): void {
  checkActorName(options.name);
  const { lifetime, maxRestarts, maxTaskRetries, maxConcurrency } = options;
  if (lifetime !== undefined && lifetime !== "ephemeral" && lifetime !== "detached") {
    throw new TypeError(`lifetime ${JSON.stringify(lifetime)} is not one of "ephemeral", "detached"`);
  }
  if (lifetime === "detached" && options.name === undefined) {
    throw new TypeError(`lifetime: "detached" needs a name: a detached actor is found again (and killed) by its name; add { name: "…" }`);
  }
  for (const [key, value] of [
    ["maxRestarts", maxRestarts],
    ["maxTaskRetries", maxTaskRetries],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < -1)) throw new RangeError(`${key} must be an integer ≥ -1 (-1: no limit), got ${value}`);
  }
  if (maxTaskRetries !== undefined && maxTaskRetries !== 0 && !maxRestarts) {
    throw new TypeError(`maxTaskRetries: ${maxTaskRetries} re-sends calls to a restarted actor, but maxRestarts is 0: set maxRestarts too`);
  }
  if (maxConcurrency !== undefined && (!Number.isInteger(maxConcurrency) || maxConcurrency < 1))
    throw new RangeError(`maxConcurrency must be an integer ≥ 1, got ${maxConcurrency}`);
}

/** Whether the actor must live in a namespace's process of its own (restarts, a placement, a lifetime past the job). */
export function needsOwnProcess(options: ActorOptions): boolean {
  return options.lifetime === "detached" || options.preemptible === false || (options.maxRestarts ?? 0) !== 0;
}

/** The options two creations of one named actor must agree on. */
const IDENTITY_OPTIONS = ["lifetime", "maxRestarts", "maxTaskRetries", "maxConcurrency", "preemptible", "resources"] as const;

/** Throws unless `asked` (a getIfExists) agrees with the options `existing` was created with. */
export function checkSameOptions(name: string, existing: ActorOptions, asked: ActorOptions): void {
  const differs = IDENTITY_OPTIONS.filter((k) => JSON.stringify(existing[k]) !== JSON.stringify(asked[k]));
  if (differs.length === 0) return;
  const show = (o: ActorOptions) => JSON.stringify(Object.fromEntries(differs.map((k) => [k, o[k] ?? null])));
  throw new TypeError(
    `actor '${name}' exists with ${show(existing)}, but getIfExists asked for ${show(asked)}; ask with the same options, or choose another name`,
  );
}

/** Throws unless `asked` names the same export as `existing` (an actor's class, as `url` and export name). */
export function checkSameClass(name: string, existing: { url: string; exportName: string }, asked: { url: string; exportName: string }): void {
  if (existing.url === asked.url && existing.exportName === asked.exportName) return;
  throw new TypeError(
    `actor '${name}' exists as ${existing.exportName} of ${existing.url}, not ${asked.exportName} of ${asked.url}; choose another name for it`,
  );
}

/** Refuses cancel options other than `recursive` and `force`, and values other than booleans: a cancel would ignore them. */
export function checkCancelOptions(options: object): void {
  if (typeof options !== "object" || options === null) throw new TypeError(`cancel(ref, options): options must be an object, got ${String(options)}`);
  for (const [key, value] of Object.entries(options)) {
    if (key !== "recursive" && key !== "force") throw new TypeError(`cancel(ref, options): unknown option '${key}'; the options are recursive and force`);
    if (value !== undefined && typeof value !== "boolean") throw new TypeError(`cancel(ref, { ${key} }) takes true or false, got ${JSON.stringify(value)}`);
  }
}
