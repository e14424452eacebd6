// job/namespace: named actors shared across jobs and actors hosted in processes of
// their own (this file, hosted-actor.ts, hosted-calls.ts), the host's capacity for them
// (host-capacity.ts) and a job's way to its namespace (namespace-client.ts).
//
// The namespace: named actors shared by every job that uses it, and the host
// of actors that need a process of their own (detached, restartable or
// non-preemptible ones). It runs in a cluster's namespace service
// (cluster/namespace/service-main.ts), or privately in a driver without one. Each hosted actor
// is a 1-rank mesh in a fresh process that this actor spawns, so it owns it:
// when that process dies, supervise() starts the actor again, up to maxRestarts.
import { hostname } from "node:os";
import { load } from "../../runtime/face/code.ts";
import { Actor, endpoint } from "../../mesh/actor.ts";
import type { ActorMesh } from "../../mesh/actor-mesh.ts";
import { ActorError, SupervisionError, type MeshFailure } from "../../mesh/errors.ts";
import { thisHost, type HostMesh } from "../../mesh/host-mesh.ts";
import { kSpawnWith } from "../../mesh/proc-mesh.ts";
import { actorMeshAt } from "../../mesh/mesh-at.ts";
import { attachToWorkers } from "../../mesh/workers.ts";
import { HostCapacity } from "./host-capacity.ts";
import { HostedActor, type AdoptedActorRecord, type HostedActorInfo, type HostedActorRow, type HostedActorSpec } from "./hosted-actor.ts";
import { checkSameClass, checkSameOptions } from "../base/options.ts";
import { namedActorExists } from "../base/errors.ts";
import { countRestart } from "../../runtime/face/metrics.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { config } from "../../runtime/face/settings.ts";
// Hosted actors' processes load this module (ProcInfo) before their actor: their actors can stream, and the refs they
// are given are counted (borrowed from their owners), however little the actor's own module imports.
import "../actors/stream-endpoint.ts";
import "../objects/object-ref.ts";

/** Reports where its process is; spawned beside each hosted actor. */
export class ProcInfo extends Actor {
  info(): { pid: number; host: string } {
    return { pid: process.pid, host: hostname() };
  }
}

/** How many ended actors' causes are remembered for callers that still hold them (older ones get a general answer). */
const REMEMBERED = 4096;

/**
 * What the namespace answers when a hosted actor is gone: the SupervisionError as a value (thrown, the reply would
 * start "NamespaceActor.next on rank 0 …", and it is the actor the caller needs to hear of).
 */
export interface Gone {
  readonly gone: SupervisionError;
}

/** What the namespace answers when the incarnation a call failed on died and the actor was started again: how it died. */
export interface Died {
  readonly died: Error;
}

export class NamespaceActor extends Actor {
  readonly #host: HostMesh;
  readonly #capacity = new HostCapacity();
  readonly #actors = new Map<string, HostedActor>();
  /** Why each actor that ended (killed, or with its job) is gone, by key, for callers that still hold it. */
  readonly #ended = new Map<string, Error>();
  readonly #byName = new Map<string, HostedActor>();
  readonly #byMesh = new Map<string, HostedActor>();
  #next = 0;
  readonly #unwatch: () => void;

  /**
   * `hostAddr`: this process as a worker (the shared service), so hosted actors listen on TCP; null: this machine's processes.
   * `adopted`: actors other processes host that an earlier namespace registered, registered again before any call is answered.
   */
  constructor(hostAddr: string | null, adopted: readonly AdoptedActorRecord[] = []) {
    super();
    this.#host = hostAddr ? attachToWorkers([hostAddr]) : thisHost();
    // A driver that goes away takes its ephemeral actors with it.
    this.#unwatch = currentProc().onPeerLost((addr) => void this.#release(addr, "went away"));
    for (const { spec, className, addr, meshId, place } of adopted) {
      if (spec.options.name === undefined || this.#byName.has(spec.options.name)) continue;
      this.adopt(spec, className, actorMeshAt<object>(addr, meshId, spec.options.name, null, className), place);
    }
  }

  @endpoint({ concurrent: true })
  create(spec: HostedActorSpec): Promise<HostedActorInfo | Gone> {
    return answered(this.#create(spec));
  }

  async #create(spec: HostedActorSpec): Promise<HostedActorInfo> {
    const { name, getIfExists } = spec.options;
    const existing = name === undefined ? undefined : this.#byName.get(name);
    if (existing) {
      if (!getIfExists) throw namedActorExists(name!);
      sameActor(existing, spec);
      return this.#whenAlive(existing);
    }
    // Registered before anything is awaited, so a concurrent create of the same name finds it.
    const resources = spec.options.resources ?? {};
    this.#capacity.take(resources, `actor ${name ?? spec.exportName}`);
    const key = name ?? `${spec.exportName}-${this.#next++}`;
    const actor = new HostedActor(key, name ?? null, spec.exportName, spec, resources);
    this.#actors.set(key, actor);
    if (name !== undefined) this.#byName.set(name, actor);
    try {
      const Ctor = (await load({ url: spec.url, exportName: spec.exportName })) as new (...a: unknown[]) => object;
      actor.className = Ctor.name;
      await this.#start(actor, Ctor);
    } catch (err) {
      this.#forget(actor);
      actor.cause = err instanceof ActorError ? (err.cause as Error) : (err as Error);
      actor.become("dead"); // a concurrent getIfExists waiting on it gets the same error
      throw actor.cause;
    }
    return actor.info();
  }

  /**
   * Registers an actor that lives in another process — a client's, which hosts it (Client.hostActor) — under its name,
   * so jobs find it (createActor with getIfExists). It is never restarted; it ends when that process goes away or kills it.
   */
  @endpoint({ concurrent: true })
  adopt(spec: HostedActorSpec, className: string, mesh: ActorMesh<object>, place: { pid: number; host: string }): HostedActorInfo {
    const name = spec.options.name;
    if (name === undefined) throw new TypeError("an actor hosted by its caller needs a name: jobs find it by that name");
    if (this.#byName.has(name)) throw namedActorExists(name);
    const actor = new HostedActor(name, name, className, spec, {});
    actor.holds = false; // it holds nothing of this host
    Object.assign(actor, { mesh, pid: place.pid, host: place.host, incarnation: 1 });
    this.#actors.set(name, actor);
    this.#byName.set(name, actor);
    actor.become("alive");
    return actor.info();
  }

  /** The incarnation after `incarnation` once it answers, or why there will be none. */
  @endpoint({ concurrent: true })
  next(key: string, incarnation: number): Promise<HostedActorInfo | Gone> {
    return answered(this.#successor(key, incarnation));
  }

  async #successor(key: string, incarnation: number): Promise<HostedActorInfo> {
    for (;;) {
      const actor = this.#actors.get(key);
      if (!actor) throw this.#whyGone(key);
      if (actor.state === "dead") throw actor.cause!;
      if (actor.state === "alive" && actor.incarnation > incarnation) return actor.info();
      await actor.changed;
    }
  }

  /**
   * Why a call to the actor `key`'s `incarnation` failed: the actor is gone (Gone), or that incarnation died and the actor
   * is started again (Died: how it died); null while it lives.
   * The caller may have seen its connection close before this namespace, its process's parent, heard how the process
   * ended: while that incarnation still counts as alive, the answer waits for its end, up to the heartbeat timeout (by
   * which a process that does not answer is taken for dead).
   */
  @endpoint({ concurrent: true })
  async gone(key: string, incarnation: number): Promise<Gone | Died | null> {
    const deadline = Date.now() + config.heartbeatTimeoutMs;
    for (let actor = this.#actors.get(key); actor?.state === "alive" && actor.incarnation === incarnation; actor = this.#actors.get(key)) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([actor.changed, new Promise((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
    }
    const actor = this.#actors.get(key);
    if (actor && actor.state !== "dead") return actor.lastDeath?.incarnation === incarnation ? { died: actor.lastDeath.cause } : null;
    const cause = actor ? actor.cause! : this.#whyGone(key);
    return { gone: cause instanceof SupervisionError ? cause : new SupervisionError(cause.message, { cause }) };
  }

  #whyGone(key: string): Error {
    return (
      this.#ended.get(key) ??
      new SupervisionError(
        `the actor ${key} is gone: this namespace does not know it (it was killed, or ended with the job that created it, or the namespace ` +
          "service was restarted since, which ends the actors it hosted)",
      )
    );
  }

  @endpoint({ concurrent: true })
  async kill(name: string): Promise<void> {
    const actor = this.#byName.get(name);
    if (!actor) throw new Error(`there is no actor named '${name}' in this namespace; 'fray actor list' shows the names`);
    await this.#end(actor, new SupervisionError(`the named actor '${name}' is gone: it was killed (killActor, or fray actor kill)`));
  }

  list(): HostedActorRow[] {
    return [...this.#actors.values()].map((a) => a.row());
  }

  /** The driver `owner` shut its job down: its ephemeral actors end. */
  @endpoint({ concurrent: true })
  async release(owner: string): Promise<void> {
    await this.#release(owner, "shut the job down");
  }

  /** Stopping the namespace (a driver's private one) ends the processes it hosts. */
  async cleanup(): Promise<void> {
    this.#unwatch();
    const all = [...this.#actors.values()];
    for (const actor of all) this.#forget(actor);
    await Promise.all(all.map((a) => a.procs?.stop()));
  }

  supervise(failure: MeshFailure): boolean {
    const actor = this.#byMesh.get(failure.meshName);
    this.#byMesh.delete(failure.meshName);
    // Only the death of a running incarnation restarts it; a constructor that fails is its start's error.
    if (!actor || actor.state !== "alive" || failure.meshName !== meshNameOf(actor, actor.incarnation)) return true;
    actor.lastDeath = { incarnation: actor.incarnation, cause: failure.cause };
    actor.procs?.stop().catch(() => {}); // what is left of the dead incarnation's process
    if (!actor.canRestart) {
      const limit = actor.maxRestarts === 0 ? "it has maxRestarts 0" : `it was restarted ${actor.restarts} times (maxRestarts ${actor.maxRestarts})`;
      actor.cause = new SupervisionError(`${describe(actor)} died and is not started again: ${limit}; it died of: ${failure.cause.message}`, {
        cause: failure.cause,
      });
      this.#forgetName(actor);
      this.#giveBack(actor);
      actor.become("dead");
      return true;
    }
    actor.restarts++;
    countRestart(actor.spec.exportName);
    actor.become("restarting");
    load({ url: actor.spec.url, exportName: actor.spec.exportName })
      .then((Ctor) => this.#start(actor, Ctor as new (...a: unknown[]) => object))
      .catch((err: unknown) => {
        actor.cause = new SupervisionError(`${describe(actor)} could not be started again: ${(err as Error).message}`, { cause: err });
        this.#forgetName(actor);
        this.#giveBack(actor);
        actor.become("dead");
      });
    return true;
  }

  /** Starts a new incarnation: a fresh process, the constructor with the original args, and where it runs. */
  async #start(actor: HostedActor, Ctor: new (...a: unknown[]) => object): Promise<void> {
    const incarnation = ++actor.incarnation;
    const meshName = meshNameOf(actor, incarnation);
    const procs = this.#host.spawnProcs({});
    actor.procs = procs;
    this.#byMesh.set(meshName, actor);
    const { meta } = actor.spec;
    const told = meta?.hosted ? { meta: { ...meta, hosted: { ...meta.hosted, key: actor.key, incarnation } } } : {};
    const where = procs.spawn(`ns-info-${actor.key}-${incarnation}`, ProcInfo);
    let mesh: ActorMesh<object> | undefined;
    let place: { pid: number; host: string };
    try {
      place = await where.info.callOne(); // first: the process has loaded this module before the actor's arguments arrive
      mesh = procs[kSpawnWith]({ maxConcurrency: actor.spec.options.maxConcurrency ?? 1, ...told }, meshName, Ctor, ...(actor.spec.args as never[]));
      await mesh.initialized;
    } catch (err) {
      this.#byMesh.delete(meshName);
      await procs.stop();
      // Its process died while it started (a kill, not its constructor): one restart of those it may have.
      if (!(err instanceof SupervisionError) || !actor.canRestart || actor.state === "dead") throw err;
      actor.restarts++;
      countRestart(actor.spec.exportName);
      return this.#start(actor, Ctor);
    }
    const { pid, host } = place;
    if (actor.state === "dead") return; // killed while it started
    Object.assign(actor, { mesh, pid, host });
    actor.become("alive");
  }

  async #whenAlive(actor: HostedActor): Promise<HostedActorInfo> {
    while (actor.state !== "alive") {
      if (actor.state === "dead") throw actor.cause!;
      await actor.changed;
    }
    return actor.info();
  }

  /** Ends the ephemeral actors of the driver `owner`, which `how` (shut the job down, or went away). */
  async #release(owner: string, how: string): Promise<void> {
    const mine = [...this.#actors.values()].filter((a) => a.spec.owner === owner);
    const gone = (a: HostedActor) => new SupervisionError(`${describe(a)} is gone: it ended with the job that created it (its driver ${owner} ${how})`);
    await Promise.all(mine.map((a) => this.#end(a, gone(a))));
  }

  async #end(actor: HostedActor, cause: Error): Promise<void> {
    actor.cause = cause;
    this.#ended.set(actor.key, cause);
    if (this.#ended.size > REMEMBERED) this.#ended.delete(this.#ended.keys().next().value!);
    this.#forget(actor);
    actor.become("dead");
    await actor.procs?.stop();
  }

  #forget(actor: HostedActor): void {
    if (this.#actors.get(actor.key) === actor) this.#actors.delete(actor.key);
    this.#giveBack(actor);
    this.#forgetName(actor);
  }

  /** Returns what `actor` held to the host, once. */
  #giveBack(actor: HostedActor): void {
    if (!actor.holds) return;
    actor.holds = false;
    this.#capacity.give(actor.resources);
  }

  #forgetName(actor: HostedActor): void {
    if (actor.name !== null && this.#byName.get(actor.name) === actor) this.#byName.delete(actor.name);
  }
}

/** A hosted actor's SupervisionError as an answer (see Gone); any other error is thrown, as the caller's ActorError. */
function answered(work: Promise<HostedActorInfo>): Promise<HostedActorInfo | Gone> {
  return work.catch((err: unknown) => {
    if (err instanceof SupervisionError) return { gone: err };
    throw err;
  });
}

/** How errors name a hosted actor: by its name when it has one. */
function describe(actor: HostedActor): string {
  return actor.name === null ? `the actor ${actor.key}` : `the named actor '${actor.name}'`;
}

/** Throws unless `spec` asks for the same class and options as `existing` was created with. */
function sameActor(existing: HostedActor, spec: HostedActorSpec): void {
  checkSameClass(existing.name!, existing.spec, spec);
  checkSameOptions(existing.name!, existing.spec.options, spec.options);
}

function meshNameOf(actor: HostedActor, incarnation: number): string {
  return `ns-${actor.key}-${incarnation}`;
}
