// The JobContext contract shared by every backend (contexts/ and worker/remote-context.ts implement it), and
// running code in one: tasks and actor methods see the context that ran them (base/ambient.ts), so nested tasks work.
import type { ActorGroup } from "./actors/actor-group.ts";
import type { ActorClass, ActorHandle } from "./actors/actor-handle.ts";
import { ambient } from "./base/ambient.ts";
import type { ObjectRef, Refs, Resolved } from "./objects/object-ref.ts";
import type { ObjectRefStream } from "./objects/object-ref-stream.ts";
import type { ActorOptions, MultipleReturnsOptions, StreamingTaskOptions, TaskOptions } from "./base/options.ts";

export type { ActorClass } from "./actors/actor-handle.ts";
export type { Refs, Resolved } from "./objects/object-ref.ts";

export type JobKind = "sync" | "threads" | "processes" | "mesh";

export interface WaitOptions {
  /** How many refs must be ready; default 1. At least `refs.length` waits for all. */
  readonly numReturns?: number;
  /** Seconds to wait at most; then whatever is ready is returned. */
  readonly timeout?: number;
}

export type TaskFunction = (...args: never[]) => unknown;
/** A task that streams its results: an async generator function (`async function* gen() { yield … }`). */
export type StreamingFunction = (...args: never[]) => AsyncIterable<unknown>;
/** What a streaming function yields. */
export type Yielded<F> = F extends (...args: never[]) => AsyncIterable<infer T> ? T : never;

/** The refs of a task with several returns: a tuple's refs each typed, an array's all typed as its element. */
export type ReturnRefs<R> = R extends readonly unknown[] ? { -readonly [K in keyof R]: ObjectRef<R[K]> } : ObjectRef<unknown>[];

export interface CancelOptions {
  /** Cancel the tasks (and streams) the task started too, and theirs; default true. */
  readonly recursive?: boolean;
  /**
   * Stop a running task that does not end when its signal aborts (CPU-bound code, an await that ignores the signal)
   * by replacing its worker, if it is still running FRAY_CANCEL_GRACE_MS later: the worker process and its process
   * group are killed (a worker thread is terminated) and a fresh one started. Everything else on that worker fails with
   * it — tasks, and actors with their state — each error naming the cancelled task. Default false: the worker, and
   * all on it, is left alone (Ray's `force`). On `sync`, tasks run in the driver: there is no worker to replace.
   */
  readonly force?: boolean;
}

export interface JobContext {
  readonly kind: JobKind;
  run<F extends TaskFunction>(fn: F, ...args: Refs<Parameters<F>>): ObjectRef<Awaited<ReturnType<F>>>;
  /**
   * `run` with options. With `numReturns: n` the task returns an array of exactly n values and this gives n refs, one
   * per value, each kept (held by the task's worker if large) and released on its own: a shuffle's map task hands each
   * partition to its reducer without the driver. `cancel` of any of them cancels the task; a lost one runs the whole
   * task again (maxRetries). A task that returns anything else fails every ref with an error saying so.
   */
  createTask<F extends TaskFunction>(fn: F, args: Refs<Parameters<F>>, options: MultipleReturnsOptions): ReturnRefs<Awaited<ReturnType<F>>>;
  createTask<F extends TaskFunction>(fn: F, args: Refs<Parameters<F>>, options?: TaskOptions): ObjectRef<Awaited<ReturnType<F>>>;
  /**
   * Runs `fn`, an async generator function, as a task whose values arrive one
   * ref per yielded value, in order, while it still runs. Leaving the
   * `for await` loop early cancels the task; what the generator throws ends
   * the stream with that error, after the refs of the values it yielded before.
   */
  runStreaming<F extends StreamingFunction>(fn: F, ...args: Refs<Parameters<F>>): ObjectRefStream<Yielded<F>>;
  /**
   * `runStreaming` with options: a task's (`name`, `resources`, `maxRetries`, `env`) and `window`, how many items the
   * generator may yield ahead of its reader. A stream run again after its worker died (`maxRetries`) skips the values
   * its reader already has.
   */
  createStreamingTask<F extends StreamingFunction>(fn: F, args: Refs<Parameters<F>>, options?: StreamingTaskOptions): ObjectRefStream<Yielded<F>>;
  /**
   * Cancels the task behind `ref` (or a stream): a pending one never starts; a
   * running one sees `getJobContext().signal` abort. Its ref settles at once:
   * `get` rejects with TaskCancelledError, whether or not the task heeds its
   * signal. Its worker is replaced only with `{ force: true }`. Nothing happens
   * to a task that ended (its value stays). Resolves once the cancellation is
   * recorded by the job.
   */
  cancel(ref: ObjectRef | ObjectRefStream<unknown>, options?: CancelOptions): Promise<void>;
  /** Aborts when the task running this code is cancelled (its reason a TaskCancelledError); never, outside tasks. */
  readonly signal: AbortSignal;
  get<T>(ref: ObjectRef<T>): Promise<T>;
  get<T extends readonly unknown[]>(refs: T): Promise<{ -readonly [K in keyof T]: Resolved<T[K]> }>;
  get<T>(value: T): Promise<T>;
  wait(refs: readonly ObjectRef[], options?: WaitOptions): Promise<[ObjectRef[], ObjectRef[]]>;
  put<T>(value: T): ObjectRef<T>;
  /** Yields each of `refs` once, in the order they finish (failed ones too: their get() rejects). */
  asCompleted<T>(refs: readonly ObjectRef<T>[]): AsyncIterable<ObjectRef<T>>;
  createActor<C extends ActorClass>(Class: C, args?: ConstructorParameters<C>, options?: ActorOptions): Promise<ActorHandle<InstanceType<C>>>;
  /** Ends the named actor `name` (in this job, or in its namespace: a detached one too) and frees the name. */
  killActor(name: string): Promise<void>;
  /**
   * Starts `count` actors of `Class` (each constructed with `args`) and returns
   * their group at once; see ActorGroup. With `options.name`, member i is named `${name}-${i}`.
   */
  createActorGroup<C extends ActorClass>(Class: C, args: ConstructorParameters<C>, count: number, options?: ActorOptions): ActorGroup<InstanceType<C>>;
  /** Releases workers; later calls fail. A script that never calls it still exits. */
  shutdown(): Promise<void>;
  /** `shutdown()`, for `await using ctx = createJobContext(…)`: the context is shut down when its block ends. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Runs `fn` with `ctx` as the context `getJobContext()` returns, across awaits. */
export function withJobContext<T>(ctx: JobContext, fn: () => T): T {
  return ambient.als.run(ctx, fn);
}
