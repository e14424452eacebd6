// The options of `ActorMesh.respawn`, and how its `host` option is read: a
// HostMesh of one worker, known here by the worker addresses it keeps behind a
// symbol, so the mesh's types need not import HostMesh (whose ProcMeshes spawn
// ActorMeshes).
import type { Extent } from "../shape/extent.ts";

/** @internal A HostMesh's worker addresses, null for this machine: how a respawn reads its `host` option without importing HostMesh. */
export const kWorkers = Symbol("fray.workers");

/** The worker address of `host` (a HostMesh of one worker), or an error naming what to pass instead. */
export function workerOfHost(host: unknown, what: string): string {
  const workers = (host as { [kWorkers]?: readonly string[] | null } | null | undefined)?.[kWorkers];
  if (workers === undefined) {
    const got = host === null ? "null" : typeof host === "object" ? `a ${host.constructor?.name ?? "plain object"}` : typeof host;
    throw new TypeError(`respawn option host must be a HostMesh of one worker, e.g. attachToWorkers(["tcp://HOST:PORT"]), got ${got}`);
  }
  if (workers === null) {
    throw new TypeError(
      `cannot respawn ${what} on thisHost(): a proc of this machine is not reachable from the mesh's workers; pass a HostMesh of one worker, ` +
        `e.g. attachToWorkers(["tcp://HOST:PORT"])`,
    );
  }
  if (workers.length !== 1) {
    throw new RangeError(
      `respawn option host is a HostMesh of ${workers.length} hosts; pass one worker's, e.g. attachToWorkers(["${workers[0] ?? "tcp://HOST:PORT"}"])`,
    );
  }
  return workers[0];
}

/** What `respawn`'s `host` option takes: a HostMesh of one worker, e.g. `attachToWorkers([address])`. */
export interface RespawnHost {
  readonly extent: Extent;
  /** @internal */ readonly [kWorkers]: readonly string[] | null;
}

/** The options of `ActorMesh.respawn`. */
export interface RespawnOptions {
  /**
   * Where to start the rank's new process when its host is lost: a HostMesh of
   * one worker (`attachToWorkers([address])`), a newly attached one or one of
   * the mesh's other hosts. Only for meshes spawned on workers.
   */
  readonly host?: RespawnHost;
}
