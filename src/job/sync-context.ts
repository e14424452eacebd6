// The `sync` backend: everything runs in this process, at once, in order —
// for unit tests and debugging. Resource requests are checked and ignored, so
// code that asks for GPUs can be tested anywhere.
import { checkEndpointNames } from "../mesh/actor-mesh.ts";
import { checkArity, checkMethodArity, functionLabel } from "../runtime/arity.ts";
import { createActorGroup, type ActorGroup } from "./actor-group.ts";
import { actorHandle, type ActorHandle } from "./actor-handle.ts";
import { withJobContext, type ActorClass, type JobContext, type JobKind, type Refs, type TaskFunction, type WaitOptions } from "./job-context.ts";
import { ObjectRef } from "./object-ref.ts";
import { ObjectStore, waitFor } from "./object-store.ts";
import { checkActorOptions, checkResources, type ActorOptions, type TaskOptions } from "./options.ts";
import { resolveAll, getValues, namedActorExists } from "./refs.ts";
import { withTaskEnv } from "./task-env.ts";

export class SyncJobContext implements JobContext {
  readonly kind: JobKind = "sync";
  readonly #store = new ObjectStore();
  readonly #named = new Map<string, Promise<ActorHandle<object>>>();
  #next = 0;

  run<F extends TaskFunction>(fn: F, ...args: Refs<Parameters<F>>): ObjectRef<Awaited<ReturnType<F>>> {
    return this.createTask(fn, args);
  }

  createTask<F extends TaskFunction>(fn: F, args: Refs<Parameters<F>>, options: TaskOptions = {}): ObjectRef<Awaited<ReturnType<F>>> {
    checkResources(options.resources ?? {}, `task ${options.name ?? fn.name}`);
    checkArity(fn, args.length, functionLabel(fn));
    const ref = this.#newRef();
    const entry = this.#store.entry(ref.id);
    const call = (values: unknown[]) => withTaskEnv(options.env, () => withJobContext(this, () => (fn as unknown as (...a: unknown[]) => unknown)(...values)));
    if (!args.some((a) => a instanceof ObjectRef)) {
      try {
        entry.resolve(call(args as unknown[]));
      } catch (err) {
        entry.reject(err);
      }
    } else {
      resolveAll(this.#store, args as unknown[]).then(call).then(entry.resolve, entry.reject);
    }
    return ref as ObjectRef<Awaited<ReturnType<F>>>;
  }

  get(value: unknown): Promise<never> {
    return getValues(this.#store, value) as Promise<never>;
  }

  async wait(refs: readonly ObjectRef[], options: WaitOptions = {}): Promise<[ObjectRef[], ObjectRef[]]> {
    const byId = new Map(refs.map((r) => [r.id, r]));
    const [ready, pending] = await waitFor(this.#store, [...byId.keys()], options.numReturns ?? 1, options.timeout === undefined ? undefined : options.timeout * 1000);
    return [ready.map((id) => byId.get(id)!), pending.map((id) => byId.get(id)!)];
  }

  put<T>(value: T): ObjectRef<T> {
    const ref = this.#newRef();
    this.#store.entry(ref.id).resolve(value);
    return ref as ObjectRef<T>;
  }

  createActor<C extends ActorClass>(Class: C, args: ConstructorParameters<C> = [] as unknown as ConstructorParameters<C>, options: ActorOptions = {}): Promise<ActorHandle<InstanceType<C>>> {
    checkResources(options.resources ?? {}, `actor ${options.name ?? Class.name}`);
    const { name } = options;
    try {
      checkActorOptions(options); // refused on every backend, so code tested here runs on all of them
    } catch (err) {
      return Promise.reject(err);
    }
    if (name !== undefined && this.#named.has(name)) {
      if (options.getIfExists) return this.#named.get(name)! as Promise<ActorHandle<InstanceType<C>>>;
      return Promise.reject(namedActorExists(name));
    }
    const created = (async () => {
      checkEndpointNames(Class); // as on a mesh, so code tested here runs on every backend
      const instance = withJobContext(this, () => new Class(...args)) as Record<string, unknown>;
      let queue: Promise<unknown> = Promise.resolve();
      // One call at a time, in order; state survives a failed call.
      return actorHandle<InstanceType<C>>((method, callArgs) => {
        checkMethodArity(Class, method, callArgs);
        const ref = this.#newRef();
        const run = queue.then(async () => {
          const values = await resolveAll(this.#store, callArgs);
          const fn = instance[method];
          if (typeof fn !== "function") throw new TypeError(`${Class.name} has no method '${method}'`);
          return withJobContext(this, () => (fn as Function).apply(instance, values));
        });
        queue = run.catch(() => {});
        run.then(this.#store.entry(ref.id).resolve, this.#store.entry(ref.id).reject);
        return ref;
      });
    })();
    if (name !== undefined) {
      this.#named.set(name, created as Promise<ActorHandle<object>>);
      created.catch(() => this.#named.delete(name));
    }
    return created;
  }

  createActorGroup<C extends ActorClass>(Class: C, args: ConstructorParameters<C>, count: number, options?: ActorOptions): ActorGroup<InstanceType<C>> {
    return createActorGroup(this, Class, args, count, options);
  }

  async shutdown(): Promise<void> {}

  #newRef(): ObjectRef {
    return this.#store.track(new ObjectRef(`sync-${this.#next++}`));
  }

  /** @internal Values held, for tests of their release. */
  get objectCount(): number {
    return this.#store.size;
  }
}
