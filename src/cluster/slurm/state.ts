// What Slurm says about a job, read from `scontrol show job -o`, and how it and
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

function field(line: string, key: string): string {
  return new RegExp(`(?:^| )${key}=(\\S*)`).exec(line)?.[1] ?? "";
}

/** One record per line of `scontrol show job -o`. */
export function parseScontrol(text: string): SlurmJobState[] {
  return text.split("\n").flatMap((line) => {
    const jobId = field(line, "JobId");
    if (!jobId) return [];
    return [
      {
        jobId,
        state: field(line, "JobState"),
        reason: field(line, "Reason"),
        exitCode: field(line, "ExitCode"),
        restarts: Number(field(line, "Restarts")) || 0,
        tasks: Number(field(line, "NumTasks")) || 1,
      },
    ];
  });
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

/**
 * Replica status from Slurm's record of the job (undefined once Slurm has forgotten it:
 * MinJobAge), the replica's exit record, its log and the job's marks.
 */
export function replicaStatus(job: SlurmJobState | undefined, exitText: string, logPath: string, marks: JobMarks): TaskStatus {
  const exit = parseExitRecord(exitText);
  const live = job !== undefined && (PENDING.has(job.state) || RUNNING.has(job.state));
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
