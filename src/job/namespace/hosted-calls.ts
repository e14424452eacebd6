// Calls to actors a namespace hosts. A call goes straight to the actor's
// current incarnation; when that one died, the namespace says which
// incarnation replaced it (waiting for its restart) or why there is none.
// A call in flight when the actor died rejects with the SupervisionError
// unless the actor's maxTaskRetries lets it be sent again; when the actor is
// gone for good (killed, or ended with its job), the error leads with that,
// as the namespace tells it, not with the process that no longer answers.
import type { ActorMesh } from "../../mesh/actor-mesh.ts";
import { SupervisionError } from "../../mesh/errors.ts";
import { knownDead } from "../../mesh/liveness.ts";
import type { ActorTarget, HostedRef } from "../actors/actor-ref.ts";
import type { HostedActorInfo } from "./hosted-actor.ts";
import type { NamespaceClient } from "./namespace-client.ts";

interface Incarnation {
  readonly mesh: ActorMesh<object>;
  readonly number: number;
  /** Set once a call found it dead. */
  dead: boolean;
}

export class HostedCalls {
  /** The newest incarnation known of each hosted actor, by namespace and key. */
  readonly #current = new Map<string, Incarnation>();
  /** Set when the job shuts down: its hosted actors end, and calls still running say so rather than retry. */
  #shutDown = false;

  /** `namespaceOf(ns)`: the client of namespace `ns` (null: the job's private one). */
  constructor(private readonly namespaceOf: (ns: string | null) => Promise<NamespaceClient>) {}

  /** The job is shutting down (ActorRegistry.close), ending the hosted actors it created. */
  shutDown(): void {
    this.#shutDown = true;
  }

  /** Calls `method` on the hosted actor `target` with `values`. */
  async call(target: ActorTarget & { hosted: HostedRef }, method: string, values: readonly unknown[]): Promise<unknown> {
    const { hosted } = target;
    const id = `${hosted.ns ?? ""} ${hosted.key}`;
    let current = this.#current.get(id);
    if (!current || current.number < hosted.incarnation) this.#current.set(id, (current = { mesh: target.mesh, number: hosted.incarnation, dead: false }));
    let retries = hosted.maxTaskRetries;
    for (;;) {
      // One known dead was never sent to: sending to its successor is no retry.
      if (current.dead || knownDead(current.mesh)) current = await this.#next(id, hosted, current);
      try {
        return await (current.mesh as unknown as Record<string, { callOne(...a: unknown[]): Promise<unknown> }>)[method].callOne(...values);
      } catch (err) {
        if (!(err instanceof SupervisionError)) throw err;
        current.dead = true;
        if (this.#shutDown) throw shutDownError(hosted, method, err);
        if (retries === 0) throw await this.#whyFailed(hosted, method, err);
        if (retries > 0) retries--;
      }
    }
  }

  /** The error of a call that failed for good: the namespace's word when the actor is gone, else the call's own. */
  async #whyFailed(hosted: HostedRef, method: string, err: SupervisionError): Promise<Error> {
    const gone = await this.namespaceOf(hosted.ns)
      .then((ns) => ns.gone(hosted.key))
      .catch(() => null); // the namespace unreachable: the call's own error says enough
    return gone ? new SupervisionError(`${gone.message} (its method ${method} could not run: ${err.message})`, { cause: err }) : err;
  }

  async #next(id: string, hosted: HostedRef, dead: Incarnation): Promise<Incarnation> {
    const known = this.#current.get(id);
    if (known && known.number > dead.number && !known.dead) return known;
    const ns = await this.namespaceOf(hosted.ns);
    const info: HostedActorInfo = await ns.next(hosted.key, dead.number);
    const next = { mesh: info.mesh, number: info.incarnation, dead: false };
    if ((this.#current.get(id)?.number ?? -1) < next.number) this.#current.set(id, next);
    return next;
  }
}

/** A call that failed once its job began to shut down: that ended the actor (the job's ephemeral actors end with it). */
function shutDownError(hosted: HostedRef, method: string, err: SupervisionError): SupervisionError {
  const why = "the job that called it was shut down, which ends the actors it created";
  const message = `the actor ${hosted.key} is gone: ${why} (its method ${method} could not finish: ${err.message})`;
  return new SupervisionError(message, { cause: err });
}
