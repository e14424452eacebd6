// One actor a namespace hosts in a process of its own: what it was created
// with, its current incarnation (a 1-rank mesh in a fresh process), and how
// it stands — starting, alive, restarting after its process died, or dead.
import type { ActorMesh } from "../../mesh/actor-mesh.ts";
import type { ProcMesh } from "../../mesh/proc-mesh.ts";
import type { ActorMeta } from "../actors/current-actor.ts";
import type { ActorOptions, Resources } from "../base/options.ts";

/** What a job asks the namespace to host. */
export interface HostedActorSpec {
  readonly url: string;
  readonly exportName: string;
  readonly args: readonly unknown[];
  readonly options: ActorOptions;
  /** The driver it dies with (its proc address); null for a detached actor. */
  readonly owner: string | null;
  /** What the actor is told of itself (currentActor()); each incarnation gets its own key and incarnation in `hosted`. */
  readonly meta?: ActorMeta;
}

/**
 * An actor that lives in another process (a client's, Client.hostActor) as a namespace registered it (NamespaceActor.adopt),
 * kept so that a namespace started again registers it again: where it is (its process's address and its mesh id there).
 */
export interface AdoptedActorRecord {
  readonly spec: HostedActorSpec;
  readonly className: string;
  readonly addr: string;
  readonly meshId: string;
  readonly place: { readonly pid: number; readonly host: string };
}

/** What a caller needs to reach a hosted actor, and to find its next incarnation. */
export interface HostedActorInfo {
  readonly key: string;
  readonly mesh: ActorMesh<object>;
  readonly incarnation: number;
  readonly maxTaskRetries: number;
}

/** @inline */
export type HostedState = "starting" | "alive" | "restarting" | "dead";

/** A line of `fray actor list`. @inline */
export interface HostedActorRow {
  readonly name: string | null;
  readonly className: string;
  readonly host: string;
  readonly pid: number;
  readonly state: HostedState;
  readonly restarts: number;
  readonly lifetime: "ephemeral" | "detached";
}

export class HostedActor {
  state: HostedState = "starting";
  restarts = 0;
  incarnation = 0;
  mesh: ActorMesh<object> | null = null;
  procs: ProcMesh | null = null;
  pid = -1;
  host = "";
  /** Whether its resources are still taken from the host (until it dies or ends). */
  holds = true;
  /** Why it is dead, once it is. */
  cause: Error | null = null;
  /** How its last incarnation to die died (its process killed by SIGKILL, say): what a call that failed with it is told. */
  lastDeath: { readonly incarnation: number; readonly cause: Error } | null = null;
  #changed = signal();

  constructor(
    readonly key: string,
    readonly name: string | null,
    /** The export's name until the class is loaded, then the class's. */
    public className: string,
    readonly spec: HostedActorSpec,
    readonly resources: Resources,
  ) {}

  /** Resolves at the next change of state or incarnation. */
  get changed(): Promise<void> {
    return this.#changed.promise;
  }

  /** Moves to `state`, waking whoever waits for a change. */
  become(state: HostedState): void {
    this.state = state;
    this.#changed.resolve();
    this.#changed = signal();
  }

  get maxRestarts(): number {
    return this.spec.options.maxRestarts ?? 0;
  }

  get canRestart(): boolean {
    return this.maxRestarts === -1 || this.restarts < this.maxRestarts;
  }

  info(): HostedActorInfo {
    return { key: this.key, mesh: this.mesh!, incarnation: this.incarnation, maxTaskRetries: this.spec.options.maxTaskRetries ?? 0 };
  }

  row(): HostedActorRow {
    const { name, className, host, pid, state, restarts } = this;
    return { name, className, host, pid, state, restarts, lifetime: this.spec.options.lifetime ?? "ephemeral" };
  }
}

function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
