// The job's actors, as its head keeps them (what a handle is and carries, groups and
// currentActor() are ../actors/). Most are a 1-rank mesh spawned on a worker with room for
// what it holds for its whole life. A namespace hosts the others, each in a
// process of its own: every named actor when the job has a shared namespace
// (a cluster's, so other jobs find it), and any actor that must outlive the
// job, be restarted, or sit where preemption cannot reach (in the job's
// private namespace when it has no shared one).
import { load, locate, type CodeLocation } from "../../runtime/face/code.ts";
import { settingName } from "../base/settings.ts";
import { kMesh, type ActorMesh } from "../../mesh/actor-mesh.ts";
import { ActorError, SupervisionError } from "../../mesh/errors.ts";
import { kSpawnWith, type ProcMesh } from "../../mesh/proc-mesh.ts";
import type { ActorTarget } from "../actors/actor-ref.ts";
import { HostedCalls } from "../namespace/hosted-calls.ts";
import { NamespaceClient } from "../namespace/namespace-client.ts";
import { checkActorOptions, checkSameClass, checkSameOptions, needsOwnProcess, type ActorOptions, type Resources } from "../base/options.ts";
import { namedActorExists } from "../base/errors.ts";
import type { RefReader } from "../objects/ref-reader.ts";
import { placeActor, releaseActor, type ActorPlacement, type WorkerPool } from "../tasks/worker-pool.ts";
import { forcedCancel } from "../tasks/worker-replacement.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { endpointNames, endpointOptions, type PortRef } from "../../runtime/face/actors.ts";
import { STREAM_ENDPOINT } from "../actors/stream-endpoint.ts";
import { ACTOR_CALL_ENDPOINT } from "../actors/actor-call-endpoint.ts";
import { HeldValue } from "../objects/held-value.ts";
import { hasRef } from "../objects/task-args.ts";
import { placeOf, type ActorMeta, type MemberOptions } from "../actors/current-actor.ts";
import { actorCallError, type ActorCall } from "../actors/actor-call-error.ts";

/** How many replaced worker processes the registry remembers, to name the cancelled task in their actors' failures. */
const REPLACED_KEPT = 16;

/** An actor class, or where a worker exported it from. */
export type ActorCode = Function | CodeLocation;

/** A named actor of this job (not of a shared namespace), and what it was created with. */
interface Named {
  readonly code: ActorCode;
  readonly options: ActorOptions;
  readonly target: Promise<ActorTarget>;
  /** Its hold on its worker's resources, for an actor on one. */
  placement?: ActorPlacement;
  /** It died with its worker: the name is free again (killActor still ends it quietly). */
  dead?: boolean;
}

export class ActorRegistry {
  #procs: ProcMesh | null = null;
  #named = new Map<string, Named>();
  #unnamed = 0;
  /** Whether the actors it places on workers keep their large results (a `processes` or `mesh` job). */
  #keepsResults = false;
  #shared: string | null = null;
  #private: NamespaceClient | null = null;
  /** The head's [address, mesh id]: what each actor is told owns its own handle (currentActor().handle). */
  #head: readonly [string, string] = ["", ""];
  readonly #hostedCalls = new HostedCalls((ns) => this.#namespace(ns));
  /** The calls in flight, by ref id: what a cancel of one names (`Class.method`). */
  readonly #calls = new Map<string, string>();
  /** Worker processes killed to stop a force-cancelled task, by address, and the task: what their actors' calls fail naming. */
  readonly #replaced = new Map<string, string>();
  /** The names of this job's named actors, by nameKey(target): what a failed call to one names. */
  readonly #actorNames = new Map<string, string>();

  constructor(
    private readonly refs: RefReader,
    private readonly pool: WorkerPool,
    /** Runs `spawn` as the head's actor, so the head owns (and supervises) what it spawns. */
    private readonly asOwner: <T>(spawn: () => T) => T,
  ) {}

  /**
   * The workers' processes: worker `i` is rank `i` of `procs` flattened; `namespace`: the shared one's address, if any;
   * `head`: the head's [address, mesh id].
   */
  useProcs(procs: ProcMesh, namespace: string | null, head: readonly [string, string], keepsResults: boolean): void {
    this.#keepsResults = keepsResults;
    this.#procs = procs;
    this.#shared = namespace;
    this.#head = head;
  }

  create(Class: ActorCode, args: readonly unknown[], options: ActorOptions): Promise<ActorTarget> {
    try {
      checkActorOptions(options); // here, where every createActor of the job arrives
      if (options.lifetime === "detached" && this.#shared === null) {
        throw new Error(
          `lifetime: "detached" needs a namespace service to outlive this job: run it as a cluster job (fray/cluster), or give the service's ` +
            `address with createJobContext(kind, { namespace }) or ${settingName("namespace")}`,
        );
      }
    } catch (err) {
      return Promise.reject(err);
    }
    const { name } = options;
    if (this.#shared !== null && name !== undefined)
      return this.#hosted(Class, args, options, this.#shared).then((t) => (this.#actorNames.set(nameKey(t), name), t));
    const named = name === undefined ? undefined : this.#named.get(name);
    if (named && !named.dead) {
      if (!options.getIfExists) return Promise.reject(namedActorExists(name!));
      return Promise.all([codeOf(named.code), codeOf(Class)]).then(([existing, asked]) => {
        checkSameClass(name!, existing, asked);
        checkSameOptions(name!, named.options, options);
        return named.target;
      });
    }
    // A name taken again after its actor died: what failed calls to the dead one name goes with it.
    if (named?.dead)
      named.target.then(
        (t) => this.#actorNames.delete(nameKey(t)),
        () => {},
      );
    const entry: Named = { code: Class, options, target: null as never };
    const target = needsOwnProcess(options) ? this.#hosted(Class, args, options, null) : this.#onWorker(Class, args, options, entry);
    if (name !== undefined) {
      this.#named.set(name, Object.assign(entry, { target }));
      target.then(
        (t) => this.#actorNames.set(nameKey(t), name),
        () => this.#named.get(name) === entry && this.#named.delete(name),
      );
    }
    return target;
  }

  /** Ends the named actor `name` and frees the name. */
  async kill(name: string): Promise<void> {
    const named = this.#named.get(name);
    if (!named) {
      if (this.#shared !== null) return (await this.#namespace(this.#shared)).kill(name);
      throw new Error(`there is no actor named '${name}' in this job; kill one by the name it was created with`);
    }
    this.#named.delete(name);
    const target = await named.target;
    this.#actorNames.delete(nameKey(target));
    if (target.hosted) return (await this.#namespace(null)).kill(name);
    await target.mesh.stop();
    if (named.placement) releaseActor(named.placement); // once: not if its worker's death gave the resources back already
  }

  /**
   * Calls `method` of the actor `target` with `args` (refs resolved first); its result fills entry `id`. An actor on a
   * worker that keeps results is called through ACTOR_CALL_ENDPOINT (../actors/actor-call-endpoint.ts): refs to values
   * held by workers go to it as refs, which it reads itself, and a large result stays with it.
   */
  call(id: string, target: ActorTarget, method: string, args: readonly unknown[]): void {
    const call = this.#call(id, target, method);
    const viaEndpoint = target.keeps !== undefined && !target.keeps.direct.includes(method);
    const direct = (values: unknown[]): [string, readonly unknown[]] => [method, values];
    const sent = viaEndpoint || (!target.hosted && hasRef(args)) ? this.#withHeld(id, method, args, viaEndpoint) : this.refs.all(args).then(direct);
    this.#invoke(id, target, sent, call);
  }

  /** The endpoint and arguments of call `id` of `method` with `args`: through ACTOR_CALL_ENDPOINT if `viaEndpoint` or a ref's value is held by a worker. */
  async #withHeld(id: string, method: string, args: readonly unknown[], viaEndpoint: boolean): Promise<[string, readonly unknown[]]> {
    const kept = hasRef(args) ? await this.refs.allKept(args) : args;
    const held: number[] = [];
    for (let i = 0; i < kept.length; i++) if (kept[i] instanceof HeldValue) held.push(i);
    if (held.length === 0 && !viaEndpoint) return [method, kept];
    return [ACTOR_CALL_ENDPOINT, [method, kept.map((k, i) => (k instanceof HeldValue ? args[i] : k)), held, id]];
  }

  /**
   * Calls `method`, an async generator, of the actor `target` as a stream whose values go to `port`
   * (../actors/stream-endpoint.ts); entry `id` gets their count.
   */
  callStream(id: string, target: ActorTarget, method: string, args: readonly unknown[], port: PortRef): void {
    const call = this.#call(id, target, method);
    this.#invoke(
      id,
      target,
      this.refs.all(args).then((values) => [STREAM_ENDPOINT, [method, values, port]]),
      call,
    );
  }

  /** The worker process at `addr` is killed to stop force-cancelled task `task`: its actors' calls fail naming it. */
  workerReplaced(addr: string, task: string): void {
    this.#replaced.set(addr, task);
    if (this.#replaced.size > REPLACED_KEPT) this.#replaced.delete(this.#replaced.keys().next().value!);
  }

  /** Records the call of ref `id` as in flight; what its failure names. */
  #call(id: string, target: ActorTarget, method: string): ActorCall {
    const name = `${target.mesh[kMesh].className}.${method}`;
    this.#calls.set(id, name);
    return { name, actor: this.#actorNames.get(nameKey(target)) };
  }

  /** What a call rejects with: why it failed in the caller's terms, naming the cancelled task if a forced cancel took its worker. */
  #callFailure(target: ActorTarget, call: ActorCall, err: unknown): unknown {
    if (target.hosted) return err;
    const cause = err instanceof ActorError ? err.cause : err;
    const { addrs, shape } = target.mesh[kMesh];
    const task = cause instanceof SupervisionError ? this.#replaced.get(addrs[shape.members[0]]) : undefined;
    if (task === undefined) return actorCallError(call, err);
    return new SupervisionError(`${call.name} cannot complete: the actor's worker was replaced to stop ${forcedCancel(task)}`, { cause });
  }

  /** The actor call of ref `id` while it is in flight, as `Class.method`: what its cancel names. */
  callName(id: string): string | undefined {
    return this.#calls.get(id);
  }

  /** Sends the call `sent` resolves to (an endpoint and its arguments) to `target`; its result fills entry `id`. */
  #invoke(id: string, target: ActorTarget, sent: Promise<[string, readonly unknown[]]>, call: ActorCall): void {
    const entry = this.refs.store.entry(id);
    sent
      .then(
        ([endpoint, values]) =>
          (target.hosted
            ? this.#hostedCalls.call(target as ActorTarget & { hosted: NonNullable<ActorTarget["hosted"]> }, endpoint, values, call)
            : (target.mesh as unknown as Record<string, { callOne(...a: unknown[]): Promise<unknown> }>)[endpoint].callOne(...values)
          ).finally(() => values), // refs in the arguments stay counted here until the actor's reply, after its borrow of them (../objects/ref-counts.ts)
      )
      .then(
        (v) => (this.#calls.delete(id), entry.resolve(v)),
        (err: unknown) => (this.#calls.delete(id), entry.reject(this.#callFailure(target, call, err))),
      );
  }

  /** The job is over: its ephemeral actors in the shared namespace end, and its private namespace stops. */
  async close(): Promise<void> {
    const owner = currentProc().addr;
    this.#hostedCalls.shutDown();
    const shared = this.#shared === null ? null : NamespaceClient.at(this.#shared).then((ns) => ns.close(owner));
    await Promise.all([shared, this.#private?.close(owner)]).catch(() => {}); // an unreachable service has nothing of ours to end
  }

  async #namespace(ns: string | null): Promise<NamespaceClient> {
    if (ns !== null) return NamespaceClient.at(ns);
    return (this.#private ??= NamespaceClient.private(this.asOwner));
  }

  /** What the actor is told of itself (currentActor()). */
  #meta(Class: ActorCode, options: MemberOptions): ActorMeta {
    return { fray: "actor", ...placeOf(options, typeof Class === "function" ? Class.name : Class.exportName), head: this.#head };
  }

  async #hosted(Class: ActorCode, args: readonly unknown[], options: ActorOptions, ns: string | null): Promise<ActorTarget> {
    const { url, exportName } = await codeOf(Class);
    const client = await this.#namespace(ns);
    const values = await this.refs.all(args);
    const owner = options.lifetime === "detached" ? null : currentProc().addr;
    // The namespace fills in the key and incarnation of each incarnation it starts.
    const meta: ActorMeta = { ...this.#meta(Class, options), hosted: { ns, key: "", incarnation: 0, maxTaskRetries: options.maxTaskRetries ?? 0 } };
    const info = await client.create({ url, exportName, args: values, options, owner, meta });
    return { mesh: info.mesh, hosted: { ns, key: info.key, incarnation: info.incarnation, maxTaskRetries: info.maxTaskRetries } };
  }

  async #onWorker(Class: ActorCode, args: readonly unknown[], options: ActorOptions, entry: Named): Promise<ActorTarget> {
    const resources: Resources = options.resources ?? {};
    const label = options.name ?? (typeof Class === "function" ? Class.name : Class.exportName);
    const impossible = this.pool.impossible(resources, "actor", label);
    if (impossible) throw impossible;
    let worker = this.pool.pick(resources);
    if (!worker) await this.pool.restarted(resources); // a worker that died is starting again: its actors come back with it
    worker ??= this.pool.pick(resources);
    if (!worker) throw new RangeError(`actor ${label} requests ${JSON.stringify(resources)}, which no worker has free now`);
    const placement = placeActor(worker, resources, () => (entry.dead = true));
    entry.placement = placement;
    try {
      const Ctor = (typeof Class === "function" ? Class : await load(Class)) as new (...a: unknown[]) => object;
      const values = await this.refs.all(args);
      const meshName = options.name ?? `actor-${this.#unnamed++}`;
      const procs = this.#procs!.flatten("workers").slice({ workers: worker.index });
      const spawnOptions = { maxConcurrency: options.maxConcurrency ?? 1, meta: this.#meta(Class, options) };
      const mesh = this.asOwner(() => procs[kSpawnWith](spawnOptions, meshName, Ctor, ...(values as never[])));
      await mesh.initialized.catch((err: unknown) => {
        throw err instanceof ActorError ? err.cause : err;
      });
      return this.#keepsResults ? { mesh: mesh as ActorMesh<object>, keeps: { direct: directMethods(Ctor) } } : { mesh: mesh as ActorMesh<object> };
    } catch (err) {
      releaseActor(placement);
      throw err;
    }
  }
}

/** Where a target's actor is named: a hosted actor by its key (which outlives its incarnations), one on a worker by its mesh. */
function nameKey(target: ActorTarget): string {
  return target.hosted ? `hosted ${target.hosted.ns ?? ""} ${target.hosted.key}` : `mesh ${target.mesh[kMesh].id}`;
}

/** The methods of `Class` with endpoint options, which a call through ACTOR_CALL_ENDPOINT would lose: called directly. */
function directMethods(Class: Function): string[] {
  return endpointNames(Class).filter((name) => Object.keys(endpointOptions(Class, name) ?? {}).length > 0);
}

function codeOf(code: ActorCode): Promise<CodeLocation> {
  return typeof code === "function" ? locate(code) : Promise.resolve(code);
}
