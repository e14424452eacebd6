// The `sync` backend: everything runs in this process, at once, in order —
// for unit tests and debugging. Resource requests are checked and ignored, so
// code that asks for GPUs can be tested anywhere.
import { checkEndpointNames } from "../mesh/actor-mesh.ts";
import { checkArity, checkMethodArity, functionLabel } from "../runtime/actors/arity.ts";
import { createActorGroup, type ActorGroup } from "./actors/actor-group.ts";
import { asCompleted } from "./as-completed.ts";
import { actorHandle, type ActorHandle } from "./actors/actor-handle.ts";
import { ActorRef } from "./actors/actor-ref.ts";
import { withJobContext, type ActorClass, type JobContext, type JobKind, type Refs, type TaskFunction, type WaitOptions } from "./job-context.ts";
import { ObjectRef, type RefOwner } from "./object-ref.ts";
import { ObjectStore } from "./object-store.ts";
import { checkActorOptions, checkResources, checkSameOptions, type ActorOptions, type TaskOptions } from "./options.ts";
import { namedActorExists, RefReader } from "./refs.ts";
import { withTaskEnv } from "./tasks/task-env.ts";
import { CallLimiter } from "./actors/call-limiter.ts";
import { syncActorScope } from "./actors/current-actor.ts";
import { SyncActor } from "./actors/sync-actor.ts";
import { config, settingName } from "../runtime/base/config.ts";

/** What a sync job's handles carry: their calls run in this process, so they cannot be sent to another. */
const SYNC_HANDLE = new ActorRef(
  null,
  null,
  "an actor handle of a sync job context calls an actor in this process: it cannot be sent to another. Run the job on the threads or " +
    "processes backend to pass its handles around",
);

export class SyncJobContext implements JobContext {
  readonly kind: JobKind = "sync";
  readonly #store = new ObjectStore();
  readonly #refs = new RefReader(this.#store);
  readonly #owner: RefOwner = { head: null, store: this.#store };
  readonly #named = new Map<string, { Class: Function; options: ActorOptions; handle: Promise<ActorHandle<object>>; actor: SyncActor }>();
  /** Every actor made here, whose shutdown signals abort when the context shuts down. */
  readonly #actors = new Set<SyncActor>();
  #next = 0;

  run<F extends TaskFunction>(fn: F, ...args: Refs<Parameters<F>>): ObjectRef<Awaited<ReturnType<F>>> {
    return this.createTask(fn, args);
  }

  createTask<F extends TaskFunction>(fn: F, args: Refs<Parameters<F>>, options: TaskOptions = {}): ObjectRef<Awaited<ReturnType<F>>> {
    checkResources(options.resources ?? {}, `task ${options.name ?? fn.name}`);
    checkArity(fn, args.length, functionLabel(fn));
    const ref = this.#newRef();
    const entry = this.#store.entry(ref.id);
    // A task run from an actor's method is no part of the actor: currentActor() there is refused, as on the other backends.
    const call = (values: unknown[]) =>
      syncActorScope.run(null, () => withTaskEnv(options.env, () => withJobContext(this, () => (fn as unknown as (...a: unknown[]) => unknown)(...values))));
    if (!args.some((a) => a instanceof ObjectRef)) {
      try {
        entry.resolve(call(args as unknown[]));
      } catch (err) {
        entry.reject(err);
      }
    } else {
      this.#refs
        .all(args as unknown[])
        .then(call)
        .then(
          (v) => entry.resolve(v),
          (e: unknown) => entry.reject(e),
        );
    }
    return ref as ObjectRef<Awaited<ReturnType<F>>>;
  }

  get(value: unknown): Promise<never> {
    return this.#refs.get(value) as Promise<never>;
  }

  wait(refs: readonly ObjectRef[], options: WaitOptions = {}): Promise<[ObjectRef[], ObjectRef[]]> {
    return this.#refs.wait(refs, options.numReturns ?? 1, options.timeout === undefined ? undefined : options.timeout * 1000);
  }

  asCompleted<T>(refs: readonly ObjectRef<T>[]): AsyncIterable<ObjectRef<T>> {
    return asCompleted(this, refs);
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
      handle = actorHandle<InstanceType<C>>((method, callArgs) => {
        checkMethodArity(Class, method, callArgs);
        const ref = this.#newRef();
        const values = this.#refs.all(callArgs);
        const run = limiter.run(async () => actor.call(method, await values));
        run.then(
          (v) => this.#store.entry(ref.id).resolve(v),
          (e: unknown) => this.#store.entry(ref.id).reject(e),
        );
        return ref;
      }, SYNC_HANDLE);
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

  createActorGroup<C extends ActorClass>(Class: C, args: ConstructorParameters<C>, count: number, options?: ActorOptions): ActorGroup<InstanceType<C>> {
    return createActorGroup(this, Class, args, count, options);
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

  [Symbol.asyncDispose](): Promise<void> {
    return this.shutdown();
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
