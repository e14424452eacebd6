// The Client: Marin's current Fray API over a cluster (local or Slurm) — jobs
// submitted as JobHandles, actors created in the cluster's namespace (alone or
// in groups), and actors hosted by the calling process itself that the
// cluster's jobs reach by name. A face over the Cluster and the job layer's
// namespace machinery, not a second engine: `client.cluster` is the Cluster.
import { hostname } from "node:os";
import { kMesh, type ActorMesh } from "../../mesh/actor-mesh.ts";
import { thisProc } from "../../mesh/host-mesh.ts";
import { actorMeshAt } from "../../mesh/mesh-at.ts";
import { kSpawnWith } from "../../mesh/proc-mesh.ts";
import { locate } from "../../runtime/face/code.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { createActorGroup } from "../../job/actors/actor-group.ts";
import type { ActorHandle } from "../../job/actors/actor-handle.ts";
import { kHandleFor, type ActorTarget, type HostedRef } from "../../job/actors/actor-ref.ts";
import type { ActorMeta, MemberOptions } from "../../job/actors/current-actor.ts";
import { checkActorOptions } from "../../job/base/options.ts";
import { createJobContext } from "../../job/contexts/create.ts";
import type { ActorClass, JobContext, Resolved } from "../../job/job-context.ts";
import { NamespaceClient } from "../../job/namespace/namespace-client.ts";
import { kOwner, type ObjectRef } from "../../job/objects/object-ref.ts";
import { kNamespaceDir, type Cluster } from "../cluster.ts";
import { removeClientHosted, writeClientHosted } from "../namespace/client-hosted-records.ts";
import { JobHandle } from "../job-handle.ts";
import type { JobRequest, LaunchOptions } from "../types.ts";
import { actorOptions, type ClientActorOptions } from "./client-actor-options.ts";
import { withLifecycle, type ClientActorGroup } from "./client-group.ts";
import { startKeeper, type Keeper } from "./host-keeper.ts";
import { HostedInstance, offerInstance, withdrawInstance } from "./hosted-instance.ts";

export interface HostActorOptions {
  /** The name the cluster's jobs find it by: `getJobContext().createActor(Class, [], { name, getIfExists: true })`. */
  readonly name: string;
  /**
   * How many of its calls may run at once (async methods interleave at their awaits); default 1. Jobs that find it
   * with `getIfExists` ask with the same value.
   */
  readonly maxConcurrency?: number;
}

/** An actor that lives in the process that hosts it (Client.hostActor). */
export interface HostedActor<T> {
  readonly name: string;
  /** Its handle: calls from here, or sent to the cluster's jobs as an argument. */
  readonly handle: ActorHandle<T>;
  /** Ends it and frees its name in the namespace; calls to it then reject. */
  shutdown(): Promise<void>;
}

export class Client {
  #context: Promise<JobContext> | null = null;
  /** The owner of the actors this client hosts, started with the first. */
  #keeper: Promise<Keeper> | null = null;
  /** The actors it hosts, by mesh name (their own names). */
  readonly #hosted = new Map<string, HostedActor<object>>();
  #shutdown = false;

  /** @internal Use createClient(spec) or currentClient(). */
  constructor(
    /** The Cluster underneath: the same jobs, namespace and actors (cluster.launch works alongside). */
    readonly cluster: Cluster,
  ) {}

  /** The spec the cluster was made from ("local", "slurm?partition=…"). */
  get spec(): string {
    return this.cluster.spec;
  }

  /**
   * Starts a job and returns its handle once the scheduler has accepted it. A pending or running job of the same name
   * is adopted (its handle returned, nothing started) unless `adoptExisting: false`, which throws JobAlreadyExistsError
   * with the existing job's handle as `error.handle`.
   */
  async submit(request: JobRequest, options: LaunchOptions = {}): Promise<JobHandle> {
    this.#check();
    return new JobHandle(await this.cluster.launch(request, options), this.cluster);
  }

  /**
   * Creates an actor in the cluster's namespace service (a process of its own on that service's host), found by the
   * cluster's jobs by its name. It ends with this client (its process, or shutdown()) unless actorConfig.lifetime is
   * "detached"; actorConfig.maxRestarts restarts it when it dies or calls currentActor().fail().
   */
  async createActor<C extends ActorClass>(
    Class: C,
    args: ConstructorParameters<C> = [] as unknown as ConstructorParameters<C>,
    options: ClientActorOptions = {},
  ): Promise<ActorHandle<InstanceType<C>>> {
    this.#check();
    const jobOptions = actorOptions(Class, options, `createActor(${Class.name})`);
    return (await this.#ctx()).createActor(Class, args, jobOptions);
  }

  /**
   * Starts `count` actors of `Class` in the cluster's namespace (member i named `${name}-${i}`) and returns their group
   * at once: waitReady, any, all and discoverNew as a job's groups have, plus isDone() and shutdown().
   */
  createActorGroup<C extends ActorClass>(
    Class: C,
    args: ConstructorParameters<C>,
    count: number,
    options: ClientActorOptions = {},
  ): ClientActorGroup<InstanceType<C>> {
    this.#check();
    const { name, ...rest } = actorOptions(Class, options, `createActorGroup(${Class.name})`);
    const starts: (Promise<ActorHandle<object>> | undefined)[] = [];
    const creator = {
      createActor: (C: ActorClass, a: unknown, o: MemberOptions) => {
        const start = this.#ctx().then((ctx) => ctx.createActor(C, a as never, o)) as Promise<ActorHandle<object>>;
        starts[o.groupMember!.index] = start;
        return start;
      },
    } as unknown as Pick<JobContext, "createActor">;
    const group = createActorGroup(creator, Class, args, count, { ...rest, name });
    return withLifecycle(group, name!, { starts }, this.cluster);
  }

  /**
   * Hosts an actor in this process — a new instance of `Class`, or an instance already made — under `name` in the
   * cluster's namespace, so the cluster's jobs reach it by that name. It is never restarted; it ends with
   * `shutdown()`, with this client, or with this process.
   */
  hostActor<C extends ActorClass>(Class: C, args: ConstructorParameters<C>, options: HostActorOptions): Promise<HostedActor<InstanceType<C>>>;
  hostActor<T extends object>(instance: T, args: readonly [] | undefined, options: HostActorOptions): Promise<HostedActor<T>>;
  async hostActor(what: object, args: readonly unknown[] | undefined, options: HostActorOptions): Promise<HostedActor<object>> {
    this.#check();
    const name = options?.name;
    if (typeof name !== "string" || name === "") throw new TypeError("hostActor(instanceOrClass, args, { name }) needs a name: jobs find the actor by it");
    const unknown = Object.keys(options).filter((k) => k !== "name" && k !== "maxConcurrency");
    if (unknown.length) throw new TypeError(`hostActor: unknown option ${unknown.join(", ")}; the options are name and maxConcurrency`);
    const { maxConcurrency } = options;
    checkActorOptions({ name, maxConcurrency });
    const isClass = typeof what === "function";
    if (!isClass && args !== undefined && args.length > 0)
      throw new TypeError(`hostActor(instance, args, …): an instance is already constructed, so args must be [] or undefined, got ${args.length}`);
    const Class = (isClass ? what : what.constructor) as ActorClass;
    const ctx = await this.#ctx(); // this process now listens where the cluster's jobs reach it
    const { address } = await this.cluster.namespace();
    const ns = await NamespaceClient.at(address);
    const { url, exportName } = await locate(Class); // jobs name the same export to find it
    const hosted: HostedRef = { ns: address, key: name, incarnation: 1, maxTaskRetries: 0 };
    const meta: ActorMeta = { fray: "actor", index: 0, groupName: name, head: headOf(ctx), hosted };
    if (this.#hosted.has(name)) throw new Error(`this client already hosts an actor named '${name}'; choose another name`);
    const keeper = await (this.#keeper ??= startKeeper((failure) => void this.#hosted.get(failure.meshName)?.shutdown()));
    const offered = isClass ? null : offerInstance(what);
    const spawned = keeper.asOwner(() =>
      isClass
        ? thisProc()[kSpawnWith]({ meta, maxConcurrency }, name, Class, ...((args ?? []) as never[]))
        : thisProc()[kSpawnWith]({ meta, maxConcurrency }, name, HostedInstance, offered!),
    );
    try {
      await spawned.initialized;
      // An instance's mesh is called by its own class's endpoints.
      const mesh = (isClass ? spawned : actorMeshAt(spawned[kMesh].addrs[0], spawned[kMesh].id, name, Class)) as ActorMesh<object>;
      const owner = currentProc().addr;
      const adopted = maxConcurrency === undefined ? { name } : { name, maxConcurrency };
      const spec = { url, exportName, args: [], options: adopted, owner, meta };
      const place = { pid: process.pid, host: hostname() };
      await ns.adopt(spec, Class.name, mesh, place);
      // Written down, so a namespace service started again after it died registers it again (client-hosted-records.ts).
      const namespaceDir = this.cluster[kNamespaceDir];
      writeClientHosted(namespaceDir, { spec, className: Class.name, addr: mesh[kMesh].addrs[0], meshId: mesh[kMesh].id, place });
      const target: ActorTarget = { mesh, hosted };
      const handle = (ctx as unknown as { [kHandleFor](t: ActorTarget, C?: Function): ActorHandle<object> })[kHandleFor](target, Class);
      const actor: HostedActor<object> = {
        name,
        handle,
        shutdown: async () => {
          if (this.#hosted.get(name) !== actor) return;
          this.#hosted.delete(name);
          removeClientHosted(namespaceDir, name);
          await ns.kill(name).catch(() => {}); // already gone from the namespace (killed there): end it here all the same
          await spawned.stop();
        },
      };
      this.#hosted.set(name, actor);
      return actor;
    } catch (err) {
      if (offered) withdrawInstance(offered);
      await spawned.stop().catch(() => {});
      throw err;
    }
  }

  /** The value of an actor call's ref (or of several); as a job context's `get`. */
  get<T>(ref: ObjectRef<T>): Promise<T>;
  get<T extends readonly unknown[]>(refs: T): Promise<{ -readonly [K in keyof T]: Resolved<T[K]> }>;
  async get(value: unknown): Promise<unknown> {
    return (await this.#ctx()).get(value);
  }

  /** Ends the actors this client hosts and the ephemeral ones it created; its jobs go on. Later calls are refused. */
  async shutdown(): Promise<void> {
    if (this.#shutdown) return;
    this.#shutdown = true;
    await Promise.all([...this.#hosted.values()].map((a) => a.shutdown()));
    await (await this.#keeper?.catch(() => null))?.stop();
    const ctx = await this.#context?.catch(() => null);
    await ctx?.shutdown();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.shutdown();
  }

  /** The job context this client's actors are made and called through: a driver of the cluster's namespace. */
  #ctx(): Promise<JobContext> {
    return (this.#context ??= this.cluster.namespace().then(({ address, token }) => createJobContext("threads", { maxWorkers: 1, namespace: address, token })));
  }

  #check(): void {
    if (this.#shutdown) throw new Error(`this client of ${this.spec} was shut down; make another with createClient("${this.spec}")`);
  }
}

/** The [address, mesh id] of `ctx`'s head, which owns the handles made through it (read off a ref it makes). */
function headOf(ctx: JobContext): readonly [string, string] {
  const owner = ctx.put(null)[kOwner];
  if (!owner.head) throw new Error("a client's job context has a head");
  return [owner.head[kMesh].addrs[0], owner.id];
}
