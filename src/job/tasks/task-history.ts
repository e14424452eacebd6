// What this process's tasks did, for the dashboard (each process of a cluster
// job reports it, see runtime/metrics/process-report.ts): how many were
// submitted, finished, failed and ran again, and the last failed ones with
// their error and its cause chain. Always kept (a few additions per task),
// even where FRAY_METRICS=0 turns the metrics off.
import { addReportPart } from "../../runtime/face/metrics.ts";
import { causeChain } from "../../runtime/face/supervision.ts";

/** A task that failed for good (after its retries). */
export interface FailedTask {
  readonly id: string;
  readonly name: string;
  /** The error's class ("RangeError"), its message, and `Name: message` of it and each of its causes, outermost first. */
  readonly errorClass: string;
  readonly message: string;
  readonly causes: readonly string[];
  readonly time: number;
  /** The worker (rank of the job's executors) it ran on; null when it never reached one. */
  readonly worker: number | null;
}

export interface TasksReport {
  readonly submitted: number;
  readonly done: number;
  readonly failed: number;
  readonly retried: number;
  /** The last failed tasks, oldest first. */
  readonly failedTasks: readonly FailedTask[];
}

/** Failed tasks kept: the newest. */
const KEPT = 100;

class TaskHistory {
  submitted = 0;
  done = 0;
  retried = 0;
  #failed = 0;
  #failedTasks: FailedTask[] = [];

  failed(id: string, name: string, error: unknown, worker: number | null): void {
    this.#failed++;
    const e = error instanceof Error ? error : null;
    this.#failedTasks.push({
      id,
      name,
      errorClass: e ? e.name : typeof error,
      message: e ? e.message : String(error),
      causes: causeChain(error),
      time: Date.now(),
      worker,
    });
    if (this.#failedTasks.length > KEPT) this.#failedTasks.shift();
  }

  report(): TasksReport {
    return { submitted: this.submitted, done: this.done, failed: this.#failed, retried: this.retried, failedTasks: [...this.#failedTasks] };
  }
}

export const TASK_HISTORY = new TaskHistory();
addReportPart("tasks", () => TASK_HISTORY.report());
