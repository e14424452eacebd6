// The job's actors: each is a 1-rank mesh spawned on a worker with room for
// what it holds for its whole life; named ones can be found by name from any
// task or actor of the job. Calls through the head fill object-store entries.
import { load, type CodeLocation } from "../runtime/code-locator.ts";
import type { ActorMesh } from "../mesh/actor-mesh.ts";
import { ActorError } from "../mesh/errors.ts";
import type { ProcMesh } from "../mesh/proc-mesh.ts";
import type { ObjectStore } from "./object-store.ts";
import { checkActorOptions, type ActorOptions } from "./options.ts";
import { namedActorExists, resolveAll } from "./refs.ts";
import { give, take, type WorkerPool } from "./worker-pool.ts";

/** An actor class, or where a worker exported it from. */
export type ActorCode = Function | CodeLocation;

export class ActorRegistry {
  #procs: ProcMesh | null = null;
  #named = new Map<string, Promise<ActorMesh<object>>>();
  #unnamed = 0;

  constructor(
    private readonly store: ObjectStore,
    private readonly pool: WorkerPool,
    /** Runs `spawn` as the head's actor, so the head owns (and supervises) what it spawns. */
    private readonly asOwner: <T>(spawn: () => T) => T,
  ) {}

  /** The workers' processes: worker `i` is rank `i` of `procs` flattened. */
  useProcs(procs: ProcMesh): void {
    this.#procs = procs;
  }

  create(Class: ActorCode, args: readonly unknown[], options: ActorOptions): Promise<ActorMesh<object>> {
    const { name } = options;
    try {
      checkActorOptions(options); // here, where every createActor of the job arrives
    } catch (err) {
      return Promise.reject(err);
    }
    if (name !== undefined && this.#named.has(name)) {
      if (options.getIfExists) return this.#named.get(name)!;
      return Promise.reject(namedActorExists(name));
    }
    const created = this.#spawn(Class, args, options);
    if (name !== undefined) {
      this.#named.set(name, created);
      created.catch(() => this.#named.delete(name));
    }
    return created;
  }

  async #spawn(Class: ActorCode, args: readonly unknown[], options: ActorOptions): Promise<ActorMesh<object>> {
    const resources = options.resources ?? {};
    const label = options.name ?? (typeof Class === "function" ? Class.name : Class.exportName);
    const impossible = this.pool.impossible(resources, `actor ${label}`);
    if (impossible) throw impossible;
    const worker = this.pool.pick(resources);
    if (!worker) throw new RangeError(`actor ${label} requests ${JSON.stringify(resources)}, which no worker has free now`);
    take(worker, resources);
    try {
      const Ctor = (typeof Class === "function" ? Class : await load(Class)) as new (...a: unknown[]) => object;
      const values = await resolveAll(this.store, args);
      const meshName = options.name ?? `actor-${this.#unnamed++}`;
      const procs = this.#procs!.flatten("workers").slice({ workers: worker.index });
      const mesh = this.asOwner(() => procs.spawn(meshName, Ctor, ...(values as never[])));
      await mesh.initialized.catch((err: unknown) => {
        throw err instanceof ActorError ? err.cause : err;
      });
      return mesh as ActorMesh<object>;
    } catch (err) {
      give(worker, resources);
      throw err;
    }
  }

  /** Calls `method` of the actor `mesh` with `args` (refs resolved first); its result fills entry `id`. */
  call(id: string, mesh: ActorMesh<object>, method: string, args: readonly unknown[]): void {
    const entry = this.store.entry(id);
    resolveAll(this.store, args)
      .then((values) => ((mesh as unknown as Record<string, { callOne(...a: unknown[]): Promise<unknown> }>)[method]).callOne(...values))
      .then(entry.resolve, (err: unknown) => entry.reject(err instanceof ActorError ? err.cause : err));
  }
}
