// The data of `fray/cluster`: what a job asks for and what the cluster reports.
import type { Entrypoint } from "./entrypoint.ts";
import type { ResourceConfig } from "./resource-config.ts";

export type JobId = string;

/** `pending` (queued), `running`, then one of the ends: `succeeded`, `failed`, `stopped`. */
export type JobStatus = "pending" | "running" | "succeeded" | "failed" | "stopped";

/** What a failed replica threw (a job function's error, else the last error its output shows), split for programs. */
export interface ReplicaError {
  /** "RangeError"; "" when the line names no class. */
  readonly errorClass: string;
  readonly message: string;
  /** `Name: message` of it and of each cause printed after it ("[cause]: …"), outermost first. */
  readonly causes: readonly string[];
}

export interface TaskStatus {
  readonly status: JobStatus;
  /** Why it failed or stopped; on `local`, while pending, why it waits ("waiting for 2 cpu: 0 of 2 free, 1 job ahead"). */
  readonly errorMessage?: string;
  /** A failed replica's error, when it threw one (JobFailedError.cause is made from it). */
  readonly error?: ReplicaError;
  /** Attempts of this replica that failed and were started again (maxRetriesFailure); absent when 0. */
  readonly failures?: number;
  /** Times this replica was preempted and started again (maxRetriesPreemption); absent when 0. */
  readonly preemptions?: number;
}

export interface JobInfo {
  readonly jobId: JobId;
  readonly name: string;
  readonly status: JobStatus;
  /** One entry per replica, in replica order. */
  readonly tasks: readonly TaskStatus[];
  /** The failed replicas' messages, joined; absent unless the job failed or stopped. */
  readonly errorMessage?: string;
  /** Failed attempts over all replicas, retried or final (a preemption is not a failure). */
  readonly failures: number;
  /** Preemptions over all replicas: a Slurm requeue, or a local replica SIGTERMed from outside fray. */
  readonly preemptions: number;
  /**
   * What each replica asked for: "2 cpu, 4 GB ram, 1 H100 gpu", only what the request named; "none" when
   * it named no resources (on `local` such a job reserves no cores and shares them all with the others).
   */
  readonly request: string;
  /** What the backend could not enforce of the request ("disk: not enforced by the local cluster"). */
  readonly notEnforced?: readonly string[];
}

export interface EnvironmentConfig {
  /** Extra environment variables for every replica. */
  readonly envVars?: Readonly<Record<string, string>>;
  /**
   * A directory shipped to where the job runs and used as its working directory: copied into
   * the job's state directory (for Slurm, the shared one). `.git` is left out; each
   * `node_modules` becomes a symlink to the original. Default: the launcher's current
   * directory, used in place (not copied).
   */
  readonly workspace?: string;
  /**
   * npm packages (`"left-pad@1.3.0"`, `"zod@^3"`) installed for the job into a cache shared by
   * jobs with the same set (`<dir>/<backend>/npm/`); the job's `require`/`import` of them resolves
   * there after its own node_modules, and their CLIs are on PATH. A failed install fails the launch.
   */
  readonly npmPackages?: readonly string[];
  /**
   * Shell lines run in order (`sh -e`, from a 0600 file) in the job's working directory before
   * the entrypoint, in every process of every attempt; a failing one fails the attempt with its
   * output. Files they make are seen by the entrypoint, variables they set are not (use envVars).
   */
  readonly setupScripts?: readonly string[];
  /** A container image: refused by `local` and `slurm`, which run on the host as it is. */
  readonly image?: string;
}

export interface JobRequest {
  /** Letters, digits, `.`, `_` and `-`; no spaces. */
  readonly name: string;
  readonly entrypoint: Entrypoint;
  readonly resources?: ResourceConfig;
  readonly environment?: EnvironmentConfig;
  /** Replicas (gang-scheduled: all start together); overrides `resources.replicas`. Default 1. */
  readonly replicas?: number;
  /** Processes each replica runs (each gets FRAY_PROCESS_ID 0..n-1 and an equal share of the replica's GPUs). Default 1. */
  readonly processesPerTask?: number;
  /** Times a failed replica is started again (default 0). */
  readonly maxRetriesFailure?: number;
  /** Times a preempted replica is started again, counted apart from failures (default 100). */
  readonly maxRetriesPreemption?: number;
  /** Replicas that may fail for good while the others go on; one more stops the others and fails the job (default 0). */
  readonly maxTaskFailures?: number;
  /** Higher starts first among pending jobs (local: strictly; Slurm: --nice). Default 0. */
  readonly priority?: number;
}

export interface LaunchOptions {
  /**
   * A pending or running job of the same name: return its id instead of starting another
   * (default true, as in Marin's Fray); false → JobAlreadyExistsError.
   */
  readonly adoptExisting?: boolean;
}

/** How `Cluster.wait` waits (not `fray`'s `WaitOptions`, which is `ctx.wait`'s). */
export interface ClusterWaitOptions {
  /** Throw a JobFailedError when a job ends failed or stopped (default true, as JobHandle.wait and waitAll). */
  readonly raiseOnFailure?: boolean;
  /** Give up after this many seconds with a TimeoutError (default: wait forever). */
  readonly timeout?: number;
  /** Stop waiting once it is aborted: wait rejects with its reason (the jobs go on). */
  readonly signal?: AbortSignal;
}

/**
 * What a Cluster answers about one of its jobs, all a JobHandle asks of it: a Cluster is one. (Narrower
 * than Cluster, so job-handle.ts need not import cluster.ts, which makes handles.)
 */
export interface JobControl {
  /** The job's status now. */
  poll(jobId: JobId): Promise<JobInfo>;
  /** Waits for the job and returns its JobInfo. */
  wait(jobId: JobId, options?: ClusterWaitOptions): Promise<JobInfo>;
  /** Every log line so far, then new ones as they are written, until the job ends. */
  monitor(jobId: JobId): AsyncGenerator<string, JobInfo>;
  /** The log lines written so far, each prefixed `[replica-i] `. */
  logs(jobId: JobId): Promise<string[]>;
  /** Stops every replica; resolves once they are gone. */
  terminate(jobId: JobId): Promise<void>;
}

export const TERMINAL: ReadonlySet<JobStatus> = new Set(["succeeded", "failed", "stopped"]);
