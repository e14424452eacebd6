// What an endpoint, and a DistributedArray made through one, need of the mesh
// they call: its shape, where each member is, its state, and its endpoints by
// name. An ActorMesh's state (mesh-state.ts) is one; the files that call
// through it import only this.
import type { RawExtent } from "../runtime/face/actors.ts";
import type { RankLocation } from "./errors.ts";
import type { Shape } from "./shape/shape.ts";
import type { ValueMesh } from "./shape/value-mesh.ts";

/** An endpoint as code inside the mesh layer calls it by name: arguments and results untyped. */
export interface MeshEndpoint {
  call(...args: unknown[]): Promise<ValueMesh<unknown>>;
  /** Calls rank `rank` of the mesh. */
  callRank(rank: number, ...args: unknown[]): Promise<unknown>;
  broadcast(...args: unknown[]): void;
}

/** What an endpoint needs of its mesh. */
export interface MeshTarget {
  readonly id: string;
  readonly className: string;
  readonly shape: Shape;
  readonly rawExtent: RawExtent;
  /** The members of a slice, by rank, when it is not the whole mesh in order (sent along for collectives). */
  readonly sel: readonly number[] | undefined;
  /** Proc address of each member. */
  readonly addrs: readonly string[];
  /** Changes when `addrs` does (a respawned rank), so cached groupings are rebuilt. */
  readonly version: number;
  /** Calls in flight per member, for `choose`. */
  readonly inflight: Map<number, number>;
  /** The class, where known (on the spawning side), to check endpoint names and arity at the call site. */
  readonly Class: Function | null;
  /** Set once the mesh was stopped: every call rejects with it. */
  readonly stopped: Error | undefined;
  /** The endpoint `name` of the mesh (or a builtin one). */
  endpoint(name: string): MeshEndpoint;
  /** Runs `send` once the mesh can be sent to, in call order; `fail` if it never can. */
  whenSendable(send: () => void, fail: (error: Error) => void): void;
  /** Where `rank` of this (possibly sliced) mesh is in the mesh that was spawned, for errors. */
  locate(rank: number): RankLocation;
}
