// What this process already knows about a rank's life, without asking it:
// whether a message to it would be refused at once (its process or actor is
// known dead), as opposed to sent and perhaps lost in flight.
import { Proc } from "../runtime/proc.ts";
import { kMesh, type ActorMesh, type MeshState } from "./actor-mesh.ts";

export function knownDead(mesh: ActorMesh<unknown>, rank = 0): boolean {
  const state = (mesh as unknown as { [kMesh]: MeshState })[kMesh];
  const member = state.shape.members[rank];
  return Proc.current().supervisor.unreachable(state.addrs[member], state.id, member) !== undefined;
}
