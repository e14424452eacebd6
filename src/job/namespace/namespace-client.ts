// A job's way to its namespace: the shared service at an address (a
// cluster's, or one a driver opted into), or a private NamespaceActor in the
// driver. Failures to reach the service name its address; nothing falls back
// to a private namespace. The service's own answers (a hosted actor is gone,
// say) come as they are: "cannot be reached" is said only when it cannot be.
// A service started again at its address (after a crash, or by an operator) is
// dialed again: a client that finds none listening, or finds the one it used
// gone (before or during a call), waits up to FRAY_NAMESPACE_RECONNECT_MS for one
// that accepts connections and answers.
import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { tcpHostPort } from "../../runtime/face/network.ts";
import { config, settingName } from "../base/settings.ts";
import { AuthenticationError } from "../../wire/auth.ts";
import type { ActorMesh } from "../../mesh/actor-mesh.ts";
import { ActorError, SupervisionError } from "../../mesh/errors.ts";
import { thisProc } from "../../mesh/host-mesh.ts";
import { actorMeshAt } from "../../mesh/mesh-at.ts";
import type { HostedActorInfo, HostedActorRow, HostedActorSpec } from "./hosted-actor.ts";
import { NamespaceActor, type Died, type Gone } from "./namespace-actor.ts";
import { currentProc } from "../../runtime/face/procs.ts";

/** The mesh id of the NamespaceActor in a namespace service, so clients need only its address. */
export const NAMESPACE_MESH_ID = "fray-namespace";

export class NamespaceClient {
  static readonly #shared = new Map<string, NamespaceClient>();
  /** A dial to the service under way (its first, or again after it was lost), shared by the calls that wait for it. */
  #dialing: Promise<void> | null = null;

  /** `addr`: the service's, or null for a driver's private namespace. */
  private constructor(
    readonly addr: string | null,
    private mesh: ActorMesh<NamespaceActor>,
  ) {}

  /** The shared namespace service at `addr` (`tcp://host:port`); rejects naming it when nothing listens there. */
  static async at(addr: string): Promise<NamespaceClient> {
    let client = NamespaceClient.#shared.get(addr);
    if (!client) {
      await probe(addr);
      client = NamespaceClient.#shared.get(addr) ?? new NamespaceClient(addr, serviceMesh(addr));
      NamespaceClient.#shared.set(addr, client);
    }
    if (currentProc().lostPeer(addr)) await client.#redial();
    return client;
  }

  /** A namespace of this driver's own, hosting actors in this machine's processes; `asOwner` makes it the job's. */
  static private(asOwner: <T>(spawn: () => T) => T): NamespaceClient {
    return new NamespaceClient(
      null,
      asOwner(() => thisProc().spawn("fray-private-namespace", NamespaceActor, null)),
    );
  }

  create(spec: HostedActorSpec): Promise<HostedActorInfo> {
    return this.#call(() => this.mesh.create.callOne(spec));
  }

  /** Registers the actor `mesh`, which lives in the caller's process, under `spec.options.name` (NamespaceActor.adopt). */
  adopt(spec: HostedActorSpec, className: string, mesh: ActorMesh<object>, place: { pid: number; host: string }): Promise<HostedActorInfo> {
    return this.#call(() => this.mesh.adopt.callOne(spec, className, mesh, place));
  }

  next(key: string, incarnation: number): Promise<HostedActorInfo> {
    return this.#call(() => this.mesh.next.callOne(key, incarnation));
  }

  /**
   * Why a call to the hosted actor `key`'s `incarnation` failed: the actor is gone (`gone`), or that incarnation died
   * and another was started (`died`: how); null while it lives. See NamespaceActor.gone.
   */
  failure(key: string, incarnation: number): Promise<Gone | Died | null> {
    return this.#call<Died | null>(() => this.mesh.gone.callOne(key, incarnation)).catch((err: unknown) => {
      if (err instanceof SupervisionError) return { gone: err };
      throw err;
    });
  }

  kill(name: string): Promise<void> {
    return this.#call(() => this.mesh.kill.callOne(name));
  }

  list(): Promise<HostedActorRow[]> {
    return this.#call(() => this.mesh.list.callOne());
  }

  release(owner: string): Promise<void> {
    return this.#call(() => this.mesh.release.callOne(owner));
  }

  /**
   * Ends this driver's ephemeral actors (each process asked to exit, killed after FRAY_PROC_STOP_TIMEOUT_MS: a call that never
   * ends does not hold the job's shutdown); a private namespace then stops. Not the namespace's stop alone: that drains the
   * meshes it owns first, and would wait on such a call for ever.
   */
  async close(owner: string): Promise<void> {
    await this.release(owner);
    if (this.addr === null) await this.mesh.stop();
  }

  async #call<T>(call: () => Promise<T | Gone>): Promise<T> {
    let answer: T | Gone;
    let deadline: number | undefined;
    for (;;) {
      if (this.addr !== null && currentProc().lostPeer(this.addr)) await this.#redial();
      try {
        answer = await call();
        break;
      } catch (err) {
        if (err instanceof ActorError) throw err.cause; // the namespace's own answer
        const lost = this.addr === null ? undefined : currentProc().lostPeer(this.addr);
        if (!lost) throw err; // not for want of the service: say what it is
        // The service went while the call was on its way (or as it was dialed): again, to the one started after it,
        // for up to FRAY_NAMESPACE_RECONNECT_MS (a service started again and killed again, say).
        deadline ??= Date.now() + config.namespaceReconnectMs;
        if (Date.now() >= deadline || refusedToken(lost)) throw unreachable(this.addr!, lost);
      }
    }
    if (isGone(answer)) throw answer.gone;
    return answer;
  }

  /** Waits for a service to accept connections at this client's address again, and sends to it from then on. */
  #redial(): Promise<void> {
    return (this.#dialing ??= (async () => {
      try {
        const addr = this.addr!;
        await probe(addr);
        currentProc().redial(addr);
        this.mesh = serviceMesh(addr);
      } finally {
        this.#dialing = null;
      }
    })());
  }
}

function serviceMesh(addr: string): ActorMesh<NamespaceActor> {
  return actorMeshAt<NamespaceActor>(addr, NAMESPACE_MESH_ID, "namespace", NamespaceActor);
}

function isGone(answer: unknown): answer is Gone {
  return typeof answer === "object" && answer !== null && (answer as Partial<Gone>).gone instanceof SupervisionError;
}

/**
 * Resolves once something accepts connections at `addr`, trying again while none does for up to FRAY_NAMESPACE_RECONNECT_MS
 * (a service being started again); then rejects naming `addr` (rather than retrying a dial for FRAY_CONNECT_TIMEOUT_MS).
 */
async function probe(addr: string): Promise<void> {
  const deadline = Date.now() + config.namespaceReconnectMs;
  for (;;) {
    try {
      return await connectOnce(addr);
    } catch (err) {
      if (Date.now() >= deadline) throw unreachable(addr, err as Error);
    }
    await sleep(Math.min(100, Math.max(0, deadline - Date.now())));
  }
}

function connectOnce(addr: string): Promise<void> {
  const { host, port } = tcpHostPort(addr);
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    socket.once("connect", () => (socket.destroy(), resolve()));
    socket.once("error", (err) => {
      socket.destroy();
      reject(err);
    });
  });
}

/** Whether `err` came of the service refusing this process's token (no use dialing it again). */
function refusedToken(err: Error): boolean {
  let why: unknown = err;
  while (why instanceof Error && !(why instanceof AuthenticationError)) why = why.cause;
  return why instanceof AuthenticationError;
}

function unreachable(addr: string, err: Error): Error {
  if (refusedToken(err)) {
    return new Error(
      `the namespace service at ${addr} refused this process's token (${err.message}): give the namespace's token with ` +
        `createJobContext(kind, { namespace, token }) or ${settingName("token")}; (await cluster.namespace()).token is it`,
      { cause: err },
    );
  }
  return new Error(
    `the namespace service at ${addr} cannot be reached (${err.message}); named actors of this job live there: is it running? A cluster ` +
      `starts it for its jobs; a driver gives its address with ${settingName("namespace")} or createJobContext(kind, { namespace })`,
    { cause: err },
  );
}
