// The data of `fray/cluster`: what a job asks for and what the cluster reports.
import type { Entrypoint } from "./entrypoint.ts";

export type JobId = string;

/** `pending` (queued), `running`, then one of the ends: `succeeded`, `failed`, `stopped`. */
export type JobStatus = "pending" | "running" | "succeeded" | "failed" | "stopped";

export interface TaskStatus {
  readonly status: JobStatus;
  readonly errorMessage?: string;
}

export interface JobInfo {
  readonly jobId: JobId;
  readonly name: string;
  readonly status: JobStatus;
  /** One entry per replica, in replica order. */
  readonly tasks: readonly TaskStatus[];
  /** The failed replicas' messages, joined; absent unless the job failed or stopped. */
  readonly errorMessage?: string;
}

export type DeviceConfig =
  | { readonly kind: "cpu" }
  | { readonly kind: "gpu"; readonly variant?: string; readonly count?: number }
  | { readonly kind: "tpu"; readonly variant: string; readonly count?: number; readonly topology?: string };

/** What each replica needs. Sizes are strings such as "512m", "4g", "1.5t" (or a number of bytes). */
export interface ResourceConfig {
  /** CPU cores per replica (default 1). */
  readonly cpu?: number;
  /** Memory per replica (default "128m"). */
  readonly ram?: string | number;
  /** Scratch disk per replica (default "1g"); recorded, not enforced by `local` or `slurm`. */
  readonly disk?: string | number;
  readonly device?: DeviceConfig;
  /** Copies of the entrypoint, each with its own FRAY_REPLICA_ID (default 1). */
  readonly replicas?: number;
  /** May the scheduler preempt it (Slurm: --requeue)? Default false. */
  readonly preemptible?: boolean;
  readonly regions?: readonly string[];
}

export interface EnvironmentConfig {
  /** Extra environment variables for every replica. */
  readonly envVars?: Readonly<Record<string, string>>;
  /** Working directory of the replicas (default: the launcher's current directory). */
  readonly workspace?: string;
}

export interface JobRequest {
  /** Letters, digits, `.`, `_` and `-`; no spaces. */
  readonly name: string;
  readonly entrypoint: Entrypoint;
  readonly resources?: ResourceConfig;
  readonly environment?: EnvironmentConfig;
  /** Times a failed replica is started again (default 0). */
  readonly maxRetriesFailure?: number;
  /** Times a preempted job is requeued (default 100; Slurm only, with `preemptible`). */
  readonly maxRetriesPreemption?: number;
}

export interface WaitOptions {
  /** Throw a JobFailedError when a job ends failed or stopped (default false). */
  readonly raiseOnFailure?: boolean;
  /** Give up after this many seconds with a TimeoutError (default: wait forever). */
  readonly timeout?: number;
}

export const TERMINAL: ReadonlySet<JobStatus> = new Set(["succeeded", "failed", "stopped"]);
