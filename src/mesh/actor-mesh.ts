// ActorMesh<T>: one actor of class T per rank, typed from the class so an editor
// completes endpoints with their argument and return types. Meshes can be sent
// to other actors, which call them directly.
import { registerHandleType } from "../wire/codec.ts";
import { endpointNames, type NotEndpointName, type Port } from "../runtime/face/actors.ts";
import { DistributedArray } from "./array/distributed-array.ts";
import type { Endpoint } from "./endpoint.ts";
import { SupervisionError } from "./errors.ts";
import { MeshState, SendGate, type MeshRef } from "./mesh-state.ts";
import type { RespawnOptions } from "./respawn/respawn-options.ts";
import { Extent } from "./shape/extent.ts";
import { Shape, type SliceSpec } from "./shape/shape.ts";
import { currentProc } from "../runtime/face/procs.ts";
import { SUPERVISOR } from "../runtime/face/supervision.ts";

/** The endpoint type of method `F`: an explicit-response-port method answers with its port's type. */
export type EndpointOf<F> = F extends (...args: infer All) => infer R
  ? All extends [Port<infer P>, ...infer A]
    ? Endpoint<A, P>
    : Endpoint<All, Awaited<R>>
  : never;

/** The endpoints of actor class instance `T`. */
export type Endpoints<T> = {
  readonly [K in keyof T as K extends NotEndpointName | MeshMemberName ? never : T[K] extends (...args: never[]) => unknown ? K : never]: EndpointOf<T[K]>;
};

/**
 * A mesh of actors of class `T`: its own members (`slice`, `size`, `extent`, …)
 * and one property per endpoint. `spawn` refuses a class with an endpoint named
 * like a member.
 */
export type ActorMesh<T> = MeshMembers<T> & Endpoints<T>;

/** Names no endpoint may have: see MESH_MEMBER_NAMES. */
export type MeshMemberName = Exclude<keyof MeshMembers<unknown>, symbol> | "then" | "toJSON";

/** A mesh's internals, kept behind the `kMesh` symbol so no endpoint name can meet them. */
export const kMesh = Symbol("fray.mesh");

/** The members every ActorMesh has besides its endpoints (an endpoint may not take their names). */
export interface MeshMembers<T> {
  /** @internal */ readonly [kMesh]: MeshState;
  /** Resolves when every actor is constructed; rejects with the first construction failure. */
  readonly initialized: Promise<void>;
  /** The mesh's named dimensions and their sizes. */
  readonly extent: Extent;
  /** Its number of actors. */
  readonly size: number;
  /** Each dimension's size, by name. */
  readonly sizes: Record<string, number>;
  /** The actors at `spec`'s coordinates: a dimension fixed to an index is dropped, one given a range is kept. */
  slice(spec: SliceSpec): ActorMesh<T>;
  /** The same actors with dimensions renamed, `{ old: "new" }`. */
  rename(mapping: Readonly<Record<string, string>>): ActorMesh<T>;
  /** The same actors along one dimension named `label`. */
  flatten(label: string): ActorMesh<T>;
  /**
   * Stops every actor of the mesh after the messages already sent to it:
   * meshes they own stop first, then each actor's `cleanup()` runs (at most
   * FRAY_CLEANUP_TIMEOUT_MS). Calls after that reject with SupervisionError.
   * A stop is not a failure: no owner hears of it.
   */
  stop(): Promise<void>;
  /**
   * Replaces failed rank `rank` (of this mesh's extent; for the mesh `spawn`
   * returned, the rank its MeshFailure names) in place. Where the rank's
   * process is gone, a new one starts at the same place — same host, same
   * RANK, WORLD_SIZE, LOCAL_RANK and CUDA_VISIBLE_DEVICES — as a process,
   * thread or remote worker's proc, like the old one. The actor is constructed
   * there with the original constructor arguments; then `call`, `broadcast`,
   * `callOne` and every slice reach the rank again, collectives regroup with
   * it, and a later failure of it is reported to `supervise()` as a new
   * MeshFailure. Rejects if the constructor throws (the rank stays failed;
   * respawn may be tried again).
   *
   * `options.host` moves a rank of a mesh spawned on workers to another one:
   * when the rank's host is lost (its worker is gone, so `respawn(rank)`
   * rejects saying so), `respawn(rank, { host: attachToWorkers([address]) })`
   * starts its new process on that worker — a newly attached one or one of the
   * mesh's other hosts — with the same rank environment, and later respawns
   * of the rank start it there. `host` must be a HostMesh of one worker; a
   * worker that is gone, a thisHost() mesh or host, and a rank whose process
   * is alive on another worker are refused, and a worker that cannot start
   * the proc (no GPU for its `gpus` coordinate, say) rejects the respawn.
   *
   * Only the mesh's owner (the actor or client that spawned it) may respawn,
   * and only a failed rank: a running rank, an out-of-range rank or a stopped
   * mesh is refused. Copies of the mesh passed to other actors before the
   * respawn still name the old process: pass the mesh again.
   */
  respawn(rank: number, options?: RespawnOptions): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
  toString(): string;
}

export class ActorMeshImpl<T> implements MeshMembers<T> {
  /** @internal */ readonly [kMesh]: MeshState;

  /** @internal */
  constructor(ref: MeshRef, shape: Shape) {
    this[kMesh] = new MeshState(ref, shape);
  }

  /** @internal */
  static create<T>(ref: MeshRef, shape: Shape): ActorMesh<T> {
    return new Proxy(new ActorMeshImpl<T>(ref, shape), ENDPOINT_ACCESS) as ActorMesh<T>;
  }

  get initialized(): Promise<void> {
    return this[kMesh].ref.initialized;
  }

  get extent(): Extent {
    return this[kMesh].shape.extent;
  }

  get size(): number {
    return this[kMesh].shape.extent.size;
  }

  get sizes(): Record<string, number> {
    return this[kMesh].shape.extent.dims;
  }

  slice(spec: SliceSpec): ActorMesh<T> {
    return ActorMeshImpl.create<T>(this[kMesh].ref, this[kMesh].shape.slice(spec));
  }

  rename(mapping: Readonly<Record<string, string>>): ActorMesh<T> {
    return ActorMeshImpl.create<T>(this[kMesh].ref, this[kMesh].shape.rename(mapping));
  }

  flatten(label: string): ActorMesh<T> {
    return ActorMeshImpl.create<T>(this[kMesh].ref, this[kMesh].shape.flatten(label));
  }

  async stop(): Promise<void> {
    const { ref } = this[kMesh];
    if (ref.stopped) return;
    const stopped = new SupervisionError(`${ref.className} mesh '${ref.name}' was stopped`);
    // Sends already made go first (FIFO); the stop waits for the class check like any send.
    await new Promise<void>((resolve) => ref.gate.run(resolve, () => resolve()));
    ref.stopped = stopped;
    await currentProc().get(SUPERVISOR).stopMesh(ref.id, ref.addrs);
  }

  async respawn(rank: number, options: RespawnOptions = {}): Promise<void> {
    const { ref, shape } = this[kMesh];
    const size = shape.extent.size;
    if (!Number.isInteger(rank) || rank < 0 || rank >= size) {
      throw new RangeError(
        `respawn(${rank}): mesh '${ref.name}' ${shape.extent} has ranks 0 to ${size - 1}; pass one of those (a MeshFailure's rank, on the mesh spawn returned)`,
      );
    }
    const unknown = typeof options === "object" && options !== null ? Object.keys(options).filter((k) => k !== "host") : null;
    if (!unknown || unknown.length) {
      throw new TypeError(
        `respawn(${rank}, options): ${unknown ? `unknown option ${unknown.join(", ")}` : "options must be an object"}; the only option is host`,
      );
    }
    if (!ref.respawner) {
      throw new Error(
        `cannot respawn rank ${shape.members[rank]} of mesh '${ref.name}': this handle was passed from another actor; only the mesh's owner ` +
          `(which spawned it) may replace its ranks`,
      );
    }
    await ref.respawner.respawn(shape.members[rank], options.host);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  toString(): string {
    return `ActorMesh(${this[kMesh].ref.name}: ${this[kMesh].ref.className} over ${this[kMesh].shape.extent})`;
  }
}

/**
 * Names no endpoint may have: the mesh's own members, which a call through the
 * mesh would reach instead, and `then`/`toJSON`, which `await` and
 * JSON.stringify read (a mesh must not look like a promise).
 */
export const MESH_MEMBER_NAMES: readonly string[] = [
  ...Object.getOwnPropertyNames(ActorMeshImpl.prototype).filter((n) => n !== "constructor"),
  "then",
  "toJSON",
];
const MESH_MEMBERS = new Set(MESH_MEMBER_NAMES);

/** Throws when an endpoint of `Class` has the name of a mesh member: calls could never reach it. */
export function checkEndpointNames(Class: Function): void {
  const clash = endpointNames(Class).find((n) => MESH_MEMBERS.has(n));
  if (clash === undefined) return;
  throw new TypeError(
    `${Class.name}.${clash} cannot be an endpoint: '${clash}' is a member of every actor mesh ` +
      `(${MESH_MEMBER_NAMES.join(", ")}), so calls would never reach the method; rename ${Class.name}.${clash}`,
  );
}

// Mesh members win; any other string property is an endpoint (spawn refused
// classes whose endpoints would be hidden). `then` must stay undefined so a
// mesh can be returned from async functions and awaited.
const ENDPOINT_ACCESS: ProxyHandler<ActorMeshImpl<unknown>> = {
  get(target, prop) {
    if (typeof prop === "symbol" || prop in target) return Reflect.get(target, prop, target);
    if (prop === "then" || prop === "toJSON") return undefined;
    return target[kMesh].endpoint(prop);
  },
};

registerHandleType<ActorMeshImpl<unknown>>({
  type: "actorMesh",
  Class: ActorMeshImpl,
  toWire: (m) => {
    const { ref, shape } = m[kMesh];
    const { members } = shape;
    return [
      ref.id,
      ref.name,
      ref.className,
      shape.extent.labels,
      shape.extent.sizes,
      members,
      members.map((i) => ref.addrs[i]),
      ref.extent.labels,
      ref.extent.sizes,
      ref.version,
    ];
  },
  fromWire: (data) => {
    const [id, name, className, labels, sizes, members, memberAddrs, spawnedLabels, spawnedSizes, version = 0] = data as [
      string,
      string,
      string,
      string[],
      number[],
      number[],
      string[],
      string[],
      number[],
      number?,
    ];
    const addrs: string[] = [];
    members.forEach((member, i) => (addrs[member] = memberAddrs[i]));
    const extent = new Extent(spawnedLabels, spawnedSizes);
    const ref: MeshRef = {
      id,
      name,
      className,
      extent,
      addrs,
      version,
      Class: null,
      inflight: new Map(),
      gate: SendGate.open(),
      initialized: Promise.resolve(),
    };
    // Revived as the proxy so endpoints are properties, as on the spawning side.
    return ActorMeshImpl.create(ref, new Shape(new Extent(labels, sizes), members)) as ActorMeshImpl<unknown>;
  },
});

// A distributed array crosses the wire with its mesh, sent as this module sends meshes.
DistributedArray.registerWire(
  (target) => ActorMeshImpl.create((target as MeshState).ref, (target as MeshState).shape),
  (mesh: ActorMesh<unknown>) => mesh[kMesh],
);
