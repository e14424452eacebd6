// The `sync` backend: everything runs in this process, at once, in order —
// for unit tests and debugging. Resource requests are checked and ignored, so
// code that asks for GPUs can be tested anywhere.
import { checkEndpointNames } from "../../mesh/actor-mesh.ts";
import { checkMethodArity, functionLabel } from "../../runtime/face/actors.ts";
import { actorHandle, type ActorHandle } from "../actors/actor-handle.ts";
import { ActorRef } from "../actors/actor-ref.ts";
import {
  withJobContext,
  type ActorClass,
  type CancelOptions,
  type JobContext,
  type JobKind,
  type StreamingFunction,
  type TaskFunction,
} from "../job-context.ts";
import { JobContextBase, kReturnRef, kSubmit, kSubmitStream, kWaitFor } from "../job-context-base.ts";
import { kOwner, ObjectRef, type RefOwner } from "../objects/object-ref.ts";
import { cancelTarget, ObjectRefStream, type StreamSource } from "../objects/object-ref-stream.ts";
import { TaskCancelledError } from "../base/errors.ts";
import { SyncTasks } from "./sync-tasks.ts";
import { asStream, StreamBuffer } from "../streams/stream-buffer.ts";
import { EventLoopTurns } from "../streams/stream-pump.ts";
import { ObjectStore } from "../objects/object-store.ts";
import { checkActorOptions, checkCancelOptions, checkResources, checkSameOptions, type ActorOptions, type TaskOptions } from "../base/options.ts";
import { namedActorExists } from "../base/errors.ts";
import { RefReader } from "../objects/ref-reader.ts";
import { returnIds, taskOfReturn } from "../objects/task-returns.ts";
import { withTaskEnv } from "../worker/task-env.ts";
import { CallLimiter } from "./call-limiter.ts";
import { syncActorScope } from "../actors/current-actor.ts";
import { SyncActor } from "./sync-actor.ts";
import { config, settingName } from "../base/settings.ts";

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}

/** What a sync job's handles carry: their calls run in this process, so they cannot be sent to another. */
const SYNC_HANDLE = new ActorRef(
  null,
  null,
  "an actor handle of a sync job context calls an actor in this process: it cannot be sent to another. Run the job on the threads or " +
    "processes backend to pass its handles around",
);

/** A stream's cancel hook, kept while its reader may still read (../streams/stream-buffer.ts). */
interface StreamReader {
  cancel(): void;
}

export class SyncJobContext extends JobContextBase implements JobContext {
  readonly kind: JobKind = "sync";
  readonly #store = new ObjectStore();
  readonly #refs = new RefReader(this.#store);
  readonly #owner: RefOwner = { head: null, store: this.#store };
  readonly #named = new Map<string, { Class: Function; options: ActorOptions; handle: Promise<ActorHandle<object>>; actor: SyncActor }>();
  /** Every actor made here, whose shutdown signals abort when the context shuts down. */
  readonly #actors = new Set<SyncActor>();
  readonly #tasks = new SyncTasks();
  /** Streams whose reader has not seen their end, by ref id: `cancel` ends them even after their generator returned. */
  readonly #readers = new Map<string, StreamReader>();
  #next = 0;

  get signal(): AbortSignal {
    return this.#tasks.signal;
  }

  protected [kSubmit](fn: TaskFunction, args: unknown[], options: TaskOptions & { numReturns?: number }): ObjectRef {
    const ref = this.#newRef();
    const name = options.name ?? functionLabel(fn);
    if (options.numReturns !== undefined) this.#store.split(ref.id, returnIds(ref.id, options.numReturns), name);
    const entry = this.#store.entry(ref.id);
    const task = this.#tasks.start(ref.id, name, (error) => entry.reject(error));
    const settle = (value: unknown) => {
      this.#tasks.end(task);
      entry.resolve(value);
    };
    const fail = (error: unknown) => {
      this.#tasks.end(task);
      entry.reject(error);
    };
    // A task cancelled while its arguments were pending never starts. One run from an actor's method is no part of
    // the actor: currentActor() there is refused, as on the other backends.
    const call = (values: unknown[]) =>
      task.cancelled
        ? undefined
        : syncActorScope.run(null, () =>
            withTaskEnv(options.env, () => withJobContext(this, () => this.#tasks.run(task, () => (fn as unknown as (...a: unknown[]) => unknown)(...values)))),
          );
    if (!args.some((a) => a instanceof ObjectRef)) {
      try {
        const result = call(args);
        if (isThenable(result)) Promise.resolve(result).then(settle, fail);
        else settle(result);
      } catch (err) {
        fail(err);
      }
    } else {
      this.#refs.all(args).then(call).then(settle, fail);
    }
    return ref;
  }

  protected [kSubmitStream](fn: StreamingFunction, args: unknown[], window: number, options: TaskOptions): ObjectRefStream<unknown> {
    const name = options.name ?? functionLabel(fn);
    const start = (values: unknown[]) => (fn as unknown as (...a: unknown[]) => unknown)(...values);
    return this.#stream(this.#newRef(), name, window, this.#refs.all(args), start, undefined, options.env);
  }

  /**
   * Runs `start` (a generator function's call) as a task whose yielded values fill a stream, at most `window` items ahead
   * of its reader; an actor's `limiter` holds a call slot meanwhile. The event loop turns between values (EventLoopTurns):
   * the reader shares this thread with a generator that may compute between its yields.
   */
  #stream<T>(
    ref: ObjectRef,
    name: string,
    window: number,
    values: Promise<unknown[]>,
    start: (values: unknown[]) => unknown,
    limiter?: CallLimiter,
    env?: Readonly<Record<string, string>>,
  ): ObjectRefStream<T> {
    // The closures here hold the ref's id, not the ref: a stream's ref keeps it from being dropped (object-ref-stream.ts).
    const streamId = ref.id;
    const entry = this.#store.entry(streamId);
    const buffer = new StreamBuffer();
    let handed = 0;
    let wake: (() => void) | null = null;
    const task = this.#tasks.start(streamId, name, (error) => (entry.reject(error), buffer.finish({ error }), wake?.()));
    const drive = async (): Promise<number> => {
      const resolved = await values;
      if (task.cancelled) return 0;
      let n = 0;
      const turns = new EventLoopTurns();
      for await (const value of asStream(await start(resolved), name)) {
        if (task.cancelled) break;
        const id = `${streamId}:${n++}`;
        this.#store.entry(id).resolve(value);
        buffer.push(id);
        await turns.take();
        while (n >= handed + window && !task.cancelled) await new Promise<void>((resolve) => (wake = resolve));
        if (task.cancelled) break;
      }
      return n;
    };
    // A streaming task is no part of an actor that starts it (currentActor() there is refused, as on the other backends).
    // The generator is made and pulled inside the task's env, so its body sees it across its awaits.
    const run = () => this.#tasks.run(task, () => withTaskEnv(env, () => withJobContext(this, () => (limiter ? drive() : syncActorScope.run(null, drive)))));
    (limiter ? limiter.run(run) : run()).then(
      (n) => (this.#tasks.end(task), entry.resolve(n), buffer.finish()),
      (error: unknown) => (this.#tasks.end(task), entry.reject(error), buffer.finish({ error })),
    );
    const reader = {
      cancel: () => {
        wake?.();
        buffer.cancel(new TaskCancelledError(name));
        for (const id of buffer.unread(handed)) this.#store.release(id);
      },
    };
    this.#readers.set(streamId, reader);
    const left = () => this.#readers.delete(streamId);
    const source: StreamSource = {
      next: async (index) => {
        const id = await buffer.next(index).catch((err: unknown) => {
          left();
          throw err;
        });
        if (id === null) return (left(), null);
        handed = Math.max(handed, index + 1);
        wake?.();
        return this.#store.track(new ObjectRef(id, this.#owner));
      },
      cancel: async () => this.#cancel(streamId, true),
    };
    return new ObjectRefStream<T>(ref as ObjectRef<number>, source, () => this.#cancel(streamId, true));
  }

  async cancel(target: ObjectRef | ObjectRefStream<unknown>, options: CancelOptions = {}): Promise<void> {
    const ref = cancelTarget(target);
    checkCancelOptions(options);
    const owner = ref[kOwner];
    if (owner.head !== null || owner.store !== this.#store) {
      throw new Error(`${ref} belongs to another job; cancel it with the job context that made it`);
    }
    this.#cancel(ref.id, options.recursive ?? true);
  }

  protected override [kReturnRef](task: ObjectRef, id: string): ObjectRef {
    return this.#store.track(super[kReturnRef](task, id));
  }

  /** Cancels the task, stream or actor call of ref `id` (a return's: its task's): a stream's reader, even one whose generator returned, is ended. */
  #cancel(id: string, recursive: boolean): void {
    const task = taskOfReturn(id);
    if (task !== null && this.#tasks.cancel(task, recursive)) return;
    const reader = this.#readers.get(id);
    if (reader) {
      this.#readers.delete(id);
      reader.cancel(); // its reader's next read rejects, even if its generator had returned
    }
    if (this.#tasks.cancel(id, recursive)) return;
    const entry = this.#store.entry(id);
    if (!entry.settled) entry.reject(new TaskCancelledError(`ObjectRef(${id})`));
  }

  get(value: unknown): Promise<never> {
    return this.#refs.get(value) as Promise<never>;
  }

  protected [kWaitFor](refs: readonly ObjectRef[], numReturns: number, timeoutMs: number | undefined): Promise<[ObjectRef[], ObjectRef[]]> {
    return this.#refs.wait(refs, numReturns, timeoutMs);
  }

  put<T>(value: T): ObjectRef<T> {
    const ref = this.#newRef();
    this.#store.entry(ref.id).resolve(value);
    return ref as ObjectRef<T>;
  }

  createActor<C extends ActorClass>(
    Class: C,
    args: ConstructorParameters<C> = [] as unknown as ConstructorParameters<C>,
    options: ActorOptions = {},
  ): Promise<ActorHandle<InstanceType<C>>> {
    checkResources(options.resources ?? {}, `actor ${options.name ?? Class.name}`);
    const { name } = options;
    try {
      checkActorOptions(options);
      this.#checkPlacement(options);
    } catch (err) {
      return Promise.reject(err);
    }
    const named = name === undefined ? undefined : this.#named.get(name);
    if (named) {
      if (!options.getIfExists) return Promise.reject(namedActorExists(name!));
      try {
        if (named.Class !== Class) throw new TypeError(`actor '${name}' exists as ${named.Class.name}, not ${Class.name}; choose another name for it`);
        checkSameOptions(name!, named.options, options);
      } catch (err) {
        return Promise.reject(err);
      }
      return named.handle as Promise<ActorHandle<InstanceType<C>>>;
    }
    let handle: ActorHandle<InstanceType<C>> | null = null;
    const actor = new SyncActor(Class, args as unknown[], options, this, () => handle as ActorHandle<object>);
    const created = (async () => {
      checkEndpointNames(Class); // as on a mesh, so code tested here runs on every backend
      // The handle first: the constructor may ask currentActor() for it.
      // maxConcurrency calls at a time (default one), started in order; state survives a failed call.
      const limiter = new CallLimiter(options.maxConcurrency ?? 1);
      handle = actorHandle<InstanceType<C>>(
        (method, callArgs) => {
          checkMethodArity(Class, method, callArgs);
          const ref = this.#newRef();
          const entry = this.#store.entry(ref.id);
          const values = this.#refs.all(callArgs);
          // A call is a task here: cancelled while it waits for the actor, it never runs; while it runs, it sees the signal abort.
          const task = this.#tasks.start(ref.id, `${Class.name}.${method}`, (error) => entry.reject(error));
          const run = limiter.run(async () => {
            const resolved = await values;
            return task.cancelled ? undefined : this.#tasks.run(task, () => actor.call(method, resolved));
          });
          run.then(
            (v) => (this.#tasks.end(task), entry.resolve(v)),
            (e: unknown) => (this.#tasks.end(task), entry.reject(e)),
          );
          return ref;
        },
        SYNC_HANDLE,
        (method, callArgs, window) => {
          checkMethodArity(Class, method, callArgs);
          return this.#stream(this.#newRef(), `${Class.name}.${method}`, window, this.#refs.all(callArgs), (values) => actor.call(method, values), limiter);
        },
      );
      actor.construct();
      this.#actors.add(actor);
      return handle;
    })();
    if (name !== undefined) {
      this.#named.set(name, { Class, options, handle: created as Promise<ActorHandle<object>>, actor });
      created.catch(() => this.#named.delete(name));
    }
    return created;
  }

  async killActor(name: string): Promise<void> {
    const named = this.#named.get(name);
    if (!named) throw new Error(`there is no actor named '${name}' in this job; kill one by the name it was created with`);
    this.#named.delete(name);
    this.#actors.delete(named.actor);
    named.actor.stop("it was killed (killActor)");
  }

  /**
   * The sync backend runs actors in this process: it cannot share them through
   * a namespace, nor keep one after this process, so it refuses to pretend.
   * (Its actors cannot lose their process either, so maxRestarts holds trivially.)
   */
  #checkPlacement(options: ActorOptions): void {
    if (options.lifetime === "detached") {
      throw new Error(
        `lifetime: "detached" needs a namespace service to outlive this process; the sync backend has none: use "processes" or "threads" with ` +
          `a namespace (a cluster job, or createJobContext(kind, { namespace }))`,
      );
    }
    if (options.name !== undefined && config.namespace !== undefined) {
      throw new Error(
        `this process's jobs share named actors through the namespace at ${config.namespace} (${settingName("namespace")}), which the sync ` +
          `backend cannot reach: a named actor here would be a private one. Use "processes" or "threads"`,
      );
    }
  }

  async shutdown(): Promise<void> {
    for (const actor of this.#actors) actor.stop("its job context was shut down");
    this.#actors.clear();
  }

  #newRef(): ObjectRef {
    return this.#store.track(new ObjectRef(`sync-${this.#next++}`, this.#owner));
  }

  /** @internal Values held, for tests of their release. */
  get objectCount(): number {
    return this.#store.size;
  }
}
