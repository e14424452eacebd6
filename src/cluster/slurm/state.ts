// What Slurm says about a job, read from `squeue --Format` (or `scontrol show job -o`), and how it and
// the replicas' exit records map to Fray's task statuses.
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { failureError, failureMessage, logCause } from "../replica/failure-message.ts";
import { parseExitRecord } from "../replica/script.ts";
import type { TaskStatus } from "../types.ts";

export interface SlurmJobState {
  readonly jobId: string;
  readonly state: string;
  readonly reason: string;
  /** "code:signal" of the batch script. */
  readonly exitCode: string;
  /** Times Slurm requeued the job (RestartCnt). */
  readonly restarts: number;
  /** Tasks in the allocation (NumTasks). */
  readonly tasks: number;
}

/** What the job's files in the state directory say, besides each replica's own record. */
export interface JobMarks {
  /** The stop file's content: "terminate()" or "replica 1 failed"; undefined if none was written. */
  readonly stop?: string;
  /** Why the batch script gave up after requeues; undefined unless it did. */
  readonly preemptedOut?: string;
  /** The batch script's output file (errors from before any replica started). */
  readonly batchLogPath: string;
}

/** The fields `squeue --Format` is asked for, each ended by "|" (parseSqueue splits on it; a reason may hold spaces). */
export const SQUEUE_FORMAT = ["JobID:32|", "State:32|", "RestartCnt:16|", "NumTasks:16|", "exit_code:16|", "Reason:512|"].join(",");

/** One record per line of `squeue --noheader --Format=${SQUEUE_FORMAT}`. */
export function parseSqueue(text: string): SlurmJobState[] {
  return text.split("\n").flatMap((line) => {
    const [jobId, state, restarts, tasks, exitCode, reason] = line.split("|").map((f) => f.trim());
    if (!jobId || state === undefined) return [];
    return [{ jobId, state, reason: reason ?? "", exitCode: codeAndSignal(exitCode ?? ""), restarts: Number(restarts) || 0, tasks: Number(tasks) || 1 }];
  });
}

/** squeue gives the batch script's wait status (768); scontrol's "code:signal" (3:0) is what people know. */
function codeAndSignal(status: string): string {
  return /^\d+$/.test(status) ? `${(Number(status) >> 8) & 0xff}:${Number(status) & 0x7f}` : status;
}

const PENDING = new Set(["PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "RESV_DEL_HOLD", "SPECIAL_EXIT", "RESIZING"]);
const RUNNING = new Set(["RUNNING", "COMPLETING", "SUSPENDED", "STOPPED", "SIGNALING", "STAGE_OUT", "POWER_UP_NODE", "UPDATE_DB"]);
const WHY: Record<string, string> = {
  TIMEOUT: "hit its time limit",
  NODE_FAIL: "lost its node",
  OUT_OF_MEMORY: "ran out of memory",
  BOOT_FAIL: "its node failed to boot",
  DEADLINE: "missed its deadline",
  PREEMPTED: "was preempted",
  REVOKED: "was revoked",
};

/** Whether Slurm says the job waits to start. */
export function slurmJobPending(job: SlurmJobState | undefined): boolean {
  return job !== undefined && PENDING.has(job.state);
}

/** Whether Slurm may still change the job's state by itself (it waits or runs). */
export function slurmJobLive(job: SlurmJobState | undefined): boolean {
  return job !== undefined && slurmStateLive(job.state);
}

/** Whether a job in Slurm's state `state` (squeue's State) waits or runs. */
export function slurmStateLive(state: string): boolean {
  return PENDING.has(state) || RUNNING.has(state);
}

/**
 * Replica status from Slurm's record of the job (undefined once Slurm has forgotten it:
 * MinJobAge), the replica's exit record, its log and the job's marks.
 */
export function replicaStatus(job: SlurmJobState | undefined, exitText: string, logPath: string, marks: JobMarks): TaskStatus {
  const exit = parseExitRecord(exitText);
  const live = slurmJobLive(job);
  // A loop SIGTERMed records a preemption; only a requeue after it (or the give-up) makes it one: not scancel, not a time limit.
  const endedByPreempt = lastLine(exitText).startsWith("preempt");
  const preemptions = exit.preemptions - (!live && endedByPreempt && marks.preemptedOut === undefined ? 1 : 0);
  const counts = { ...(exit.failures > 0 && { failures: exit.failures }), ...(preemptions > 0 && { preemptions }) };
  return { ...status(), ...counts };

  function status(): TaskStatus {
    if (job && PENDING.has(job.state))
      return job.reason && job.reason !== "None" ? { status: "pending", errorMessage: `waiting: ${job.reason}` } : { status: "pending" };
    if (exit.finalCode === 0) return { status: "succeeded" };
    if (!live && marks.preemptedOut !== undefined) return { status: "failed", errorMessage: marks.preemptedOut };
    if (exit.finalCode !== undefined) {
      if (/\nstop\n+final -?\d+\n*$/.test(`\n${exitText}`)) return { status: "stopped", errorMessage: stopMessage(marks.stop) };
      const error = failureError(exit, logPath);
      return { status: "failed", errorMessage: failureMessage(exit.finalCode, exit, logPath), ...(error && { error }) };
    }
    if (live) return { status: "running" };
    // Stopped before its loop could record it (pending, or signalled as it started).
    if (marks.stop !== undefined) return { status: "stopped", errorMessage: stopMessage(marks.stop) };
    if (!job) return { status: "failed", errorMessage: "is no longer known to Slurm and left no exit record" };
    const { state, reason } = job;
    if (state === "CANCELLED") return { status: "stopped", errorMessage: "was cancelled (scancel)" };
    if (state === "FAILED" || state === "COMPLETED") {
      // Slurm writes the batch output on the node: none here means the job never ran, or its node does not see the state directory.
      const said = existsSync(marks.batchLogPath)
        ? logCause(marks.batchLogPath).join(" | ")
        : `there is no ${marks.batchLogPath}: the job never ran, or its node does not see ${dirname(marks.batchLogPath)} ` +
          "(give the cluster a dir= every node sees)";
      return {
        status: "failed",
        errorMessage: `ended without an exit record (Slurm ${state}, ExitCode=${job.exitCode}, Reason=${reason})${said ? `: ${said}` : ""}`,
      };
    }
    return { status: "failed", errorMessage: `${state}: ${WHY[state] ?? "ended abnormally"} (Reason=${reason})` };
  }
}

function stopMessage(stop: string | undefined): string {
  return stop?.startsWith("replica ") ? `was stopped because ${stop.trim()}` : "was stopped by terminate()";
}

function lastLine(text: string): string {
  return text.trimEnd().split("\n").at(-1) ?? "";
}
