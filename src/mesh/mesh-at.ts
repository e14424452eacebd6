// A 1-rank ActorMesh for a well-known actor in another process: one whose
// mesh id its spawner chose (`kSpawnWith({ id })`), so a process that was told
// only the address can call it — as a namespace's clients do.
import { ActorMeshImpl, type ActorMesh } from "./actor-mesh.ts";
import { SendGate, type MeshRef } from "./mesh-state.ts";
import { Extent } from "./shape/extent.ts";
import { Shape } from "./shape/shape.ts";

/** `Class` checks calls against its endpoints; null (a caller that may not import it) checks nothing here: the actor refuses what it lacks. */
export function actorMeshAt<T>(addr: string, id: string, name: string, Class: Function | null, className = Class?.name ?? name): ActorMesh<T> {
  const extent = new Extent([], []);
  const ref: MeshRef = {
    id,
    name,
    className,
    extent,
    addrs: [addr],
    version: 0,
    Class,
    inflight: new Map(),
    gate: SendGate.open(),
    initialized: Promise.resolve(),
  };
  return ActorMeshImpl.create<T>(ref, Shape.full(extent));
}
