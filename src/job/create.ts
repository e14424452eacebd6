// Creating and finding job contexts.
import { availableParallelism } from "node:os";
import { thisHost } from "../mesh/host-mesh.ts";
import type { ProcMesh } from "../mesh/proc-mesh.ts";
import { ambient, type JobContext, type JobKind } from "./job-context.ts";
import { MeshJobContext } from "./mesh-context.ts";
import { checkResources, type Resources } from "./options.ts";
import { SyncJobContext } from "./sync-context.ts";

export interface JobContextOptions {
  /** Workers for `threads` and `processes`; default: the number of cores. */
  readonly maxWorkers?: number;
  /** What each worker offers; default `{ cpu: 1 }`. */
  readonly resources?: Resources;
  /** For `mesh`: the processes to run on. */
  readonly procs?: ProcMesh;
}

const KINDS = ["sync", "threads", "processes", "mesh", "auto"] as const;

export function createJobContext(kind: JobKind | "auto" = "auto", options: JobContextOptions = {}): JobContext {
  const capacity = options.resources ?? { cpu: 1 };
  checkResources(capacity, "a worker");
  const workers = options.maxWorkers ?? availableParallelism();
  if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`maxWorkers must be a positive integer, got ${workers}`);
  switch (kind) {
    case "sync":
      return new SyncJobContext();
    case "auto":
    case "threads":
      return new MeshJobContext("threads", () => thisHost().spawnProcs({ workers }, { threads: true }), capacity);
    case "processes":
      return new MeshJobContext("processes", () => thisHost().spawnProcs({ workers }), capacity);
    case "mesh": {
      const { procs } = options;
      if (!procs) throw new TypeError("createJobContext('mesh') needs { procs: ProcMesh }, e.g. { procs: thisHost().spawnProcs({ workers: 4 }) }");
      return new MeshJobContext("mesh", () => procs, capacity);
    }
    default:
      throw new TypeError(`unknown job context kind ${JSON.stringify(kind)}; use one of ${KINDS.join(", ")}`);
  }
}

let fallback: JobContext | null = null;

/** The context running this code: the one a task or actor was run by, the one set by withJobContext, or the `auto` default. */
export function getJobContext(): JobContext {
  return ambient.als.getStore() ?? ambient.processDefault ?? (fallback ??= createJobContext("auto"));
}
