// Calls to actors a namespace hosts. A call goes straight to the actor's
// current incarnation; when that one died, the namespace says which
// incarnation replaced it (waiting for its restart) or why there is none.
// A call in flight when the actor died rejects with the SupervisionError
// unless the actor's maxTaskRetries lets it be sent again; when the actor is
// gone for good (killed, ended with its job, or dead with no restarts left),
// the error leads with that, as the namespace tells it, not with the
// connection that no longer answers; either names the method the caller called.
import type { ActorMesh } from "../../mesh/actor-mesh.ts";
import { SupervisionError } from "../../mesh/errors.ts";
import { knownDead } from "../../mesh/liveness.ts";
import type { ActorTarget, HostedRef } from "../actors/actor-ref.ts";
import { actorCallError, innermost, type ActorCall } from "../actors/actor-call-error.ts";
import { processExitIn } from "../../runtime/face/supervision.ts";
import { processDeath } from "../base/errors.ts";
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

  /** Calls endpoint `method` (`call`, as its caller made it) on the hosted actor `target` with `values`; fails in the caller's terms. */
  async call(target: ActorTarget & { hosted: HostedRef }, method: string, values: readonly unknown[], call: ActorCall): Promise<unknown> {
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
        if (!(err instanceof SupervisionError)) throw actorCallError(call, err);
        current.dead = true;
        if (this.#shutDown) throw shutDownError(hosted, call, err);
        if (retries === 0) throw await this.#whyFailed(hosted, current.number, call, err);
        if (retries > 0) retries--;
      }
    }
  }

  /**
   * The error of a call to `incarnation` that failed for good: the namespace's word when the actor is gone, or how that
   * incarnation's process ended when it was started again (though this caller saw only its connection close), else the call's own.
   */
  async #whyFailed(hosted: HostedRef, incarnation: number, call: ActorCall, err: SupervisionError): Promise<unknown> {
    const failure = await this.namespaceOf(hosted.ns)
      .then((ns) => ns.failure(hosted.key, incarnation))
      .catch(() => null); // the namespace unreachable: the call's own error says enough
    if (failure && "died" in failure) return actorCallError(call, new SupervisionError(err.message, { cause: failure.died }));
    const gone = failure?.gone;
    if (!gone) return actorCallError(call, err);
    // How its process ended says it all; any other end (the actor failed itself, say) is told by the call's own error.
    const why = processExitIn(gone) ? "" : `: ${innermost(err).message}`;
    return processDeath(`${gone.message} (its method ${call.name} could not finish${why})`, gone);
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
function shutDownError(hosted: HostedRef, call: ActorCall, err: SupervisionError): SupervisionError {
  const why = "the job that called it was shut down, which ends the actors it created";
  return new SupervisionError(`the actor ${hosted.key} is gone: ${why} (its method ${call.name} could not finish)`, { cause: err });
}
