// What this process's runtime holds now, for whoever looks at it from outside
// (the dashboard): the meshes it owns with their members' places and failures,
// the actors it runs itself, and the failures its supervisor saw.
import { hostname } from "node:os";
import type { FailureRecord } from "../supervision/failure-history.ts";
import type { Proc } from "../proc/proc.ts";
import { ACTORS } from "../actors/actor-table.ts";
import { SUPERVISOR, type MeshSnapshot } from "../supervision/supervisor.ts";

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

/** What `proc`'s runtime holds now. */
export function snapshotOf(proc: Proc): RuntimeSnapshot {
  const actors = [...proc.get(ACTORS).values()].map(({ key, identity }) => ({
    key,
    mesh: identity.meshName,
    className: identity.className,
    rank: identity.rank,
  }));
  const supervisor = proc.get(SUPERVISOR);
  return { addr: proc.addr, pid: process.pid, host: hostname(), meshes: supervisor.snapshot(), actors, failures: supervisor.failures.list() };
}
