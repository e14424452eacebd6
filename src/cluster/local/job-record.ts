// The files a local job keeps in its directory, so that any process can tell
// its state (local/job-status.ts) and the scheduler can see every job's claim:
//   job.json           what it asks and how to run it (written at launch)
//   replica-env.json   its replicas' variables (0600; the supervisor reads and deletes it)
//   supervisor.json    {pid, startTime} of its supervisor (local/supervisor.ts); supervisor.log its output
//   launcher.json      {pid, startTime} of the launching process, which holds the job's place until its supervisor runs
//   waiting            why it has not started yet (the supervisor rewrites it while it waits)
//   grant.json         the cores, GPUs and memory it was given; held while its supervisor or replicas live
//   replicas.json      {pid, startTime, cgroup} of each replica's loop, once all are started
//   replica-i.log / .exit / .end   output; the loop's exit record; the supervisor's note of its end
//   halt               the replica loops' stop file: a SIGTERM that comes with it is no preemption
//   stopped            terminate() was called;  gang-failed: the replica whose failure stopped the others
import { join } from "node:path";
import type { Capacity } from "./capacity.ts";
import type { Need } from "./allocation.ts";
import type { MemoryLimit } from "./memory-limit.ts";
import type { JobId } from "../types.ts";
import type { RequestFingerprint } from "../request-fingerprint.ts";

export interface ProcessRecord {
  readonly pid: number;
  readonly startTime: string;
}

/** How the job's limits are enforced, decided at launch. */
export interface EnforcementPlan {
  /** Pin each replica to its cores with taskset. */
  readonly pin: boolean;
  /** How `resources.ram` is held, when the request named it. */
  readonly memory?: MemoryLimit;
  /** What is not enforced, for JobInfo.notEnforced. */
  readonly notEnforced: readonly string[];
}

export interface LocalJobRecord {
  readonly jobId: JobId;
  readonly name: string;
  readonly createdAt: number;
  /** Launch order in this cluster: FIFO among jobs of equal priority. */
  readonly seq: number;
  readonly priority: number;
  /** JobInfo.request; absent in the records of an older fray. */
  readonly request?: string;
  /** What it was launched with, for adoption; absent in the records of an older fray. */
  readonly asked?: RequestFingerprint;
  readonly need: Need;
  readonly capacity: Capacity;
  readonly plan: EnforcementPlan;
  readonly run: {
    readonly cwd: string;
    readonly command: readonly string[];
    readonly maxRetriesFailure: number;
    readonly maxRetriesPreemption: number;
    readonly processesPerTask: number;
    readonly maxTaskFailures: number;
  };
}

/** A started replica's loop, and the memory cgroup it was put in. */
export interface ReplicaRecord extends ProcessRecord {
  readonly cgroup?: string;
}

/** What the supervisor notes when a replica's loop has ended. */
export interface ReplicaEnd {
  /** Its memory limit, when the kernel's OOM killer killed a process of it. */
  readonly oomLimitBytes?: number;
}

export function jobFiles(dir: string) {
  return {
    job: join(dir, "job.json"),
    env: join(dir, "replica-env.json"),
    supervisor: join(dir, "supervisor.json"),
    supervisorLog: join(dir, "supervisor.log"),
    launcher: join(dir, "launcher.json"),
    waiting: join(dir, "waiting"),
    grant: join(dir, "grant.json"),
    replicas: join(dir, "replicas.json"),
    halt: join(dir, "halt"),
    stopped: join(dir, "stopped"),
    gangFailed: join(dir, "gang-failed"),
    reports: join(dir, "reports"),
    log: (i: number) => join(dir, `replica-${i}.log`),
    exit: (i: number) => join(dir, `replica-${i}.exit`),
    end: (i: number) => join(dir, `replica-${i}.end`),
  };
}
