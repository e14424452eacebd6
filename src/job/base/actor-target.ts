// Where an actor handle's calls go: plain data, carried by an ActorRef (actors/actor-ref.ts) and named by the
// head's endpoints (../head-endpoints.ts), so it sits below both.
import type { ActorMesh } from "../../mesh/actor-mesh.ts";

/** For an actor a namespace hosts: where to ask for its next incarnation when this one dies. */
export interface HostedRef {
  /** The namespace service's address; null: the private namespace of the job that calls it. */
  readonly ns: string | null;
  readonly key: string;
  readonly incarnation: number;
  readonly maxTaskRetries: number;
}

/**
 * Where a handle's calls go: the actor's 1-rank mesh, and whether a namespace hosts it. `keeps`: an actor on a worker
 * that keeps large results (a `processes` or `mesh` job): its calls go through the job's call endpoint
 * (../actors/actor-call-endpoint.ts), but for `direct`, its methods with endpoint options (concurrent, an explicit
 * response port) that a call through the endpoint would lose.
 */
export interface ActorTarget {
  readonly mesh: ActorMesh<object>;
  readonly hosted?: HostedRef;
  readonly keeps?: { readonly direct: readonly string[] };
}
