// What Slurm says about a job array, read from `scontrol show job -o`, and
// how its states map to Fray's.
import { failureMessage } from "./failure-message.ts";
import type { ExitRecord } from "./replica-script.ts";
import type { TaskStatus } from "./types.ts";

export interface SlurmElement {
  /** The id the job was submitted as (an array's, for its elements). */
  readonly jobId: string;
  /** The array indices this record covers (a pending array is one record for many). */
  readonly indices: readonly number[];
  readonly state: string;
  readonly reason: string;
  /** "code:signal" */
  readonly exitCode: string;
}

function field(line: string, key: string): string {
  return new RegExp(`(?:^| )${key}=(\\S*)`).exec(line)?.[1] ?? "";
}

/** "0-2", "1,3", "0-9%2" → [0, 1, 2], [1, 3], [0 … 9]. */
export function expandIndices(spec: string): number[] {
  const out: number[] = [];
  for (const part of spec.split("%")[0].split(",")) {
    const [from, to = from] = part.split("-").map(Number);
    if (Number.isInteger(from) && Number.isInteger(to)) for (let i = from; i <= to; i++) out.push(i);
  }
  return out;
}

/** One element per line of `scontrol show job -o`; a job that is no array is element 0 of itself. */
export function parseScontrol(text: string): SlurmElement[] {
  return text.split("\n").flatMap((line) => {
    const arrayJobId = field(line, "ArrayJobId");
    const jobId = arrayJobId || field(line, "JobId");
    if (!jobId) return [];
    const indices = arrayJobId ? expandIndices(field(line, "ArrayTaskId")) : [0];
    return [{ jobId, indices, state: field(line, "JobState"), reason: field(line, "Reason"), exitCode: field(line, "ExitCode") }];
  });
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

/** A replica's status from Slurm's record, the replica loop's exit record and (for a failure) its log. */
export function taskFromSlurm(element: SlurmElement, exit: ExitRecord, logPath: string): TaskStatus {
  const { state, reason } = element;
  if (PENDING.has(state)) return reason && reason !== "None" ? { status: "pending", errorMessage: `waiting: ${reason}` } : { status: "pending" };
  if (RUNNING.has(state)) return { status: "running" };
  if (state === "COMPLETED") return { status: "succeeded" };
  if (state === "CANCELLED") return { status: "stopped", errorMessage: "was cancelled (scancel)" };
  if (state === "FAILED") {
    if (exit.finalCode !== undefined) return { status: "failed", errorMessage: failureMessage(exit.finalCode, exit, logPath) };
    return { status: "failed", errorMessage: `failed (Slurm ExitCode=${element.exitCode}, Reason=${reason})` };
  }
  return { status: "failed", errorMessage: `${state}: ${WHY[state] ?? "ended abnormally"} (Reason=${reason})` };
}

/** A replica Slurm has forgotten (MinJobAge passed): the exit record and its log are all there is. */
export function taskFromExitRecord(exit: ExitRecord, cancelled: boolean, logPath: string): TaskStatus {
  if (exit.finalCode === 0) return { status: "succeeded" };
  if (cancelled) return { status: "stopped", errorMessage: "was cancelled" };
  if (exit.finalCode !== undefined) return { status: "failed", errorMessage: failureMessage(exit.finalCode, exit, logPath) };
  return { status: "failed", errorMessage: "is no longer known to Slurm and left no exit record" };
}
