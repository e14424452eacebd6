// What this process's runtime holds now, for whoever looks at it from outside
// (the dashboard): the meshes it owns with their members' places and failures,
// the actors it runs itself, and the failures its supervisor saw.
import { hostname } from "node:os";
import type { FailureRecord } from "../supervision/failure-history.ts";
import { Proc } from "../proc/proc.ts";
import type { MeshSnapshot } from "../supervision/supervisor.ts";

/** An actor running in this process. */
export interface LocalActor {
  readonly key: string;
  readonly mesh: string;
  readonly className: string;
  readonly rank: number;
}

export interface RuntimeSnapshot {
  readonly addr: string;
  readonly pid: number;
  readonly host: string;
  readonly meshes: readonly MeshSnapshot[];
  readonly actors: readonly LocalActor[];
  readonly failures: readonly FailureRecord[];
}

/** This process's runtime now (its Proc is created if it has none yet). */
export function runtimeSnapshot(proc: Proc = Proc.current()): RuntimeSnapshot {
  const actors = [...proc.actors.values()].map(({ key, identity }) => ({ key, mesh: identity.meshName, className: identity.className, rank: identity.rank }));
  return { addr: proc.addr, pid: process.pid, host: hostname(), meshes: proc.supervisor.snapshot(), actors, failures: proc.supervisor.failures.list() };
}
