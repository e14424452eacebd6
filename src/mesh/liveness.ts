// What this process already knows about a rank's life, without asking it:
// whether a message to it would be refused at once (its process or actor is
// known dead), as opposed to sent and perhaps lost in flight.
import { kMesh, type ActorMesh } from "./actor-mesh.ts";
import type { MeshState } from "./mesh-state.ts";
import { currentProc } from "../runtime/face/procs.ts";
import { SUPERVISOR } from "../runtime/face/supervision.ts";

export function knownDead(mesh: ActorMesh<unknown>, rank = 0): boolean {
  return knownDeath(mesh, rank) !== undefined;
}

/** How `rank` died (its process or its actor), if this process knows it is dead. */
export function knownDeath(mesh: ActorMesh<unknown>, rank = 0): Error | undefined {
  const state = (mesh as unknown as { [kMesh]: MeshState })[kMesh];
  const member = state.shape.members[rank];
  return currentProc().get(SUPERVISOR).unreachable(state.addrs[member], state.id, member);
}

/**
 * Calls `lost` when the process of `rank` can no longer be reached, whether it
 * failed or was stopped (a stop is no fault, so supervision does not report
 * it); returns the function that stops watching.
 */
export function onRankLost(mesh: ActorMesh<unknown>, rank: number, lost: (error: Error) => void): () => void {
  const state = (mesh as unknown as { [kMesh]: MeshState })[kMesh];
  const addr = state.addrs[state.shape.members[rank]];
  return currentProc().onPeerLost((peer, error) => {
    if (peer === addr) lost(error);
  });
}
