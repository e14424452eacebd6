// Creating and finding job contexts.
import { availableParallelism } from "node:os";
import { tcpHostPort, useToken } from "../../runtime/face/network.ts";
import { config } from "../base/settings.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { thisHost } from "../../mesh/host-mesh.ts";
import type { ProcMesh } from "../../mesh/proc-mesh.ts";
import { currentContext } from "../base/ambient.ts";
import type { JobContext, JobKind } from "../job-context.ts";
import { MeshJobContext } from "./mesh-context.ts";
import { checkResources, type Resources } from "../base/options.ts";
import { SyncJobContext } from "./sync-context.ts";

export interface JobContextOptions {
  /** Workers for `threads` and `processes`; default: the number of cores. */
  readonly maxWorkers?: number;
  /** What each worker offers; default `{ cpu: 1 }`. */
  readonly resources?: Resources;
  /** For `mesh`: the processes to run on. */
  readonly procs?: ProcMesh;
  /**
   * The address (`tcp://host:port`) of the namespace service whose named actors
   * this job shares with other jobs; default FRAY_NAMESPACE (a cluster sets it
   * for its jobs). Not for `sync`.
   */
  readonly namespace?: string;
  /**
   * The shared token of the namespace (`(await cluster.namespace()).token`) and
   * of this job's workers: every connection of this process and of the workers
   * it starts proves it; default FRAY_TOKEN. One token per process: give it
   * before this process first connects anywhere. Not for `sync`.
   */
  readonly token?: string;
}

const KINDS = ["sync", "threads", "processes", "mesh", "auto"] as const;

export function createJobContext(kind: JobKind | "auto" = "auto", options: JobContextOptions = {}): JobContext {
  const capacity = options.resources ?? { cpu: 1 };
  checkResources(capacity, "a worker");
  const workers = options.maxWorkers ?? availableParallelism();
  if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`maxWorkers must be a positive integer, got ${workers}`);
  const namespace = options.namespace ?? config.namespace ?? null;
  if (namespace !== null) tcpHostPort(namespace); // a malformed address fails here, naming the forms
  if (options.token !== undefined) {
    if (kind === "sync")
      throw new TypeError(`the sync backend makes no connections, so it takes no token; use "processes" or "threads" with { namespace, token }`);
    useToken(options.token); // before the first connection, below
  }
  // A driver whose namespace is on another host listens where that host (and every job's) reaches it.
  if (namespace !== null && kind !== "sync") currentProc([namespace]);
  switch (kind) {
    case "sync":
      if (options.namespace !== undefined)
        throw new TypeError(
          `the sync backend runs actors in this process and cannot share them through a namespace; use "processes" or "threads" with { namespace }`,
        );
      return new SyncJobContext();
    case "auto":
    case "threads":
      return new MeshJobContext("threads", () => thisHost().spawnProcs({ workers }, { threads: true }), capacity, namespace);
    case "processes":
      return new MeshJobContext("processes", () => thisHost().spawnProcs({ workers }), capacity, namespace);
    case "mesh": {
      const { procs } = options;
      if (!procs) throw new TypeError("createJobContext('mesh') needs { procs: ProcMesh }, e.g. { procs: thisHost().spawnProcs({ workers: 4 }) }");
      return new MeshJobContext("mesh", () => procs, capacity, namespace);
    }
    default:
      throw new TypeError(`unknown job context kind ${JSON.stringify(kind)}; use one of ${KINDS.join(", ")}`);
  }
}

let fallback: JobContext | null = null;

/** The context running this code: the one a task or actor was run by, the one set by withJobContext, or the `auto` default. */
export function getJobContext(): JobContext {
  return (currentContext() as JobContext | null) ?? (fallback ??= createJobContext("auto"));
}
