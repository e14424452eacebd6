// A local job's state, read from its files (local/job-record.ts) by any
// process: pending while its supervisor waits for admission (with why), then
// each replica's, from its loop's exit record and the supervisor's note of
// its end (which says whether the OOM killer ended it).
import { existsSync } from "node:fs";
import { jobInfo } from "../cluster.ts";
import { bytes } from "../size.ts";
import { failureError, failureMessage, logCause } from "../replica/failure-message.ts";
import { jobFiles, type LocalJobRecord, type ProcessRecord, type ReplicaEnd } from "./job-record.ts";
import { readJson, readText } from "../job-files.ts";
import { groupAlive, isRunning } from "../process-group.ts";
import { parseExitRecord } from "../replica/script.ts";
import type { JobInfo, TaskStatus } from "../types.ts";

/** The processes of the job that still run: its supervisor and its replicas' groups. */
export function liveProcesses(dir: string): { supervisor?: ProcessRecord; replicas: ProcessRecord[] } {
  const files = jobFiles(dir);
  const supervisor = readJson<ProcessRecord>(files.supervisor);
  const replicas = readJson<{ replicas: ProcessRecord[] }>(files.replicas)?.replicas ?? [];
  const supervising = supervisor !== undefined && isRunning(supervisor.pid, supervisor.startTime);
  return { ...(supervising && { supervisor }), replicas: replicas.filter((r, i) => replicaAlive(r, i, files, supervising)) };
}

export function localJobInfo(dir: string, job: LocalJobRecord): JobInfo {
  const files = jobFiles(dir);
  const supervisor = readJson<ProcessRecord>(files.supervisor);
  const supervising = supervisor === undefined || isRunning(supervisor.pid, supervisor.startTime); // none yet: its launch is under way
  const replicas = readJson<{ replicas: ProcessRecord[] }>(files.replicas)?.replicas;
  const launched = { ...job, notEnforced: job.plan.notEnforced };
  const all = (task: TaskStatus) =>
    jobInfo(
      launched,
      Array.from({ length: job.need.replicas }, () => task),
    );
  if (!replicas) {
    if (existsSync(files.stopped)) return all({ status: "stopped", errorMessage: "was stopped by terminate() before it started" });
    if (supervising) return all({ status: "pending", errorMessage: readText(files.waiting).trim() || "waiting for admission" });
    const said = logCause(files.supervisorLog).join(" | ");
    return all({
      status: "failed",
      errorMessage: `did not start: its supervisor (pid ${supervisor?.pid}) ended${said ? `: ${said}` : ""} (log: ${files.supervisorLog})`,
    });
  }
  const stopped = existsSync(files.stopped);
  const gang = readText(files.gangFailed).trim();
  const tasks = replicas.map((r, i): TaskStatus => {
    const alive = replicaAlive(r, i, files, supervising);
    const exit = parseExitRecord(readText(files.exit(i)));
    const end = readJson<ReplicaEnd>(files.end(i));
    const counts = { ...(exit.failures > 0 && { failures: exit.failures }), ...(exit.preemptions > 0 && { preemptions: exit.preemptions }) };
    if (exit.finalCode === 0) return { status: "succeeded", ...counts };
    if (alive) return { status: "running", ...counts };
    if (gang !== "" && gang !== String(i)) return { status: "stopped", errorMessage: `was stopped because replica ${gang} failed`, ...counts };
    if (stopped) return { status: "stopped", errorMessage: "was stopped by terminate()", ...counts };
    if (end?.oomLimitBytes !== undefined) {
      return {
        status: "failed",
        errorMessage: `ran out of memory: killed by the kernel's OOM killer at its ${bytes(end.oomLimitBytes)} limit (resources.ram)`,
        ...counts,
      };
    }
    if (exit.finalCode !== undefined) {
      const error = failureError(exit, files.log(i));
      return { status: "failed", errorMessage: failureMessage(exit.finalCode, exit, files.log(i)), ...(error && { error }), ...counts };
    }
    return { status: "failed", errorMessage: "ended without an exit record (its process was killed)", ...counts };
  });
  return jobInfo(launched, tasks);
}

/** Its loop runs, or a command it left does, or it ended but its supervisor has not yet noted how. */
function replicaAlive(r: ProcessRecord, i: number, files: ReturnType<typeof jobFiles>, supervising: boolean): boolean {
  if (isRunning(r.pid, r.startTime)) return true;
  // Read after the check: a loop that ends writes its record first.
  const exit = parseExitRecord(readText(files.exit(i)));
  if (exit.finalCode === undefined && groupAlive(r.pid)) return true;
  return supervising && !existsSync(files.end(i));
}
