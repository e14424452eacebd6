// The Failures panel: everything that failed, newest first, each with its
// error's class, message and cause chain and where it ran: failed replicas of
// jobs (the error their log shows, e.g. "Error: disk full on /data", else how
// they exited: "was killed by SIGKILL"), failed tasks of jobs, failed members
// of meshes (this process's and the jobs' processes'), and dead namespace actors
// (one row each, under the actor's name). A worker that exited with code 0 ended: no failure.
import type { RuntimeSnapshot } from "../../runtime/face/metrics.ts";
import type { ActorRow } from "../cluster-actors.ts";
import type { JobRow, TasksSnapshot } from "./rows.ts";

export interface FailureRow {
  readonly kind: "job" | "task" | "actor";
  /** When it failed, as well as known (a job replica: when its log was last written); ms since the epoch. */
  readonly time: number;
  /** What failed: "job train-1a2b replica 0", "task parse", "mesh 'trainers' rank 2", "actor 'counter'". */
  readonly what: string;
  readonly errorClass: string;
  readonly message: string;
  /** `Name: message` of the error and each of its causes, outermost first. */
  readonly causes: readonly string[];
  /** Where it ran: the job (a link to its page), its replica, host and process. */
  readonly jobId?: string;
  readonly replica?: number | null;
  readonly host?: string;
  readonly pid?: number;
}

/** Failures kept in the panel: the newest. */
const SHOWN = 200;
/** A worker that exited by itself with code 0 ended; it did not fail (a client's actor that its client shut down, say). */
const CLEAN_EXIT = /exited with code 0$/;
/** The meshes a namespace service runs its actor KEY's incarnation N in: `ns-KEY-N`, and `ns-info-KEY-N` beside it (job/namespace/namespace-actor.ts). */
const NAMESPACE_MESH = /^ns-(info-)?(.+)-\d+$/;

export function failureRows(
  jobs: readonly JobRow[] | null,
  runtime: RuntimeSnapshot | null,
  namespaceActors: readonly ActorRow[] | null,
  tasks: TasksSnapshot | null,
): FailureRow[] {
  const rows: FailureRow[] = [];
  const taskRow = (task: NonNullable<TasksSnapshot["failedTasks"]>[number], jobId?: string): FailureRow => ({
    kind: "task",
    time: task.time,
    what: `task ${task.name}`,
    errorClass: task.errorClass,
    message: task.message,
    causes: task.causes,
    ...(jobId === undefined ? {} : { jobId }),
    replica: task.where.replica,
    host: task.where.host,
    pid: task.workerPid ?? task.where.pid,
  });
  for (const task of tasks?.failedTasks ?? []) rows.push(taskRow(task));
  for (const job of jobs ?? []) {
    job.tasks.forEach((replica, i) => {
      if (replica.status !== "failed" && !(replica.status === "stopped" && replica.errorMessage)) return;
      const error = job.replicaErrors[i];
      const exit = replica.errorMessage ?? replica.status;
      rows.push({
        kind: "job",
        time: job.replicaEndedAt[i] ?? 0,
        what: `job ${job.jobId} replica ${i}`,
        errorClass: error?.errorClass ?? "",
        message: error?.message ?? exit,
        causes: error ? [...error.causes, exit.split(":")[0]] : [exit],
        jobId: job.jobId,
        replica: i,
      });
    });
    for (const task of job.reports.tasks.failedTasks) rows.push(taskRow(task, job.jobId));
    for (const f of job.reports.failures) {
      const mesh = job.reports.meshes.find((m) => m.id === f.meshId && m.owner.pid === f.owner.pid && m.owner.host === f.owner.host);
      const member = mesh?.members[f.rank];
      rows.push(meshFailure(f, { jobId: job.jobId, replica: f.owner.replica, host: member?.host ?? f.owner.host, pid: member?.pid }));
    }
  }
  for (const f of runtime?.failures ?? []) {
    if (CLEAN_EXIT.test(f.message)) continue;
    // A namespace's actor runs in meshes of the namespace's own naming: one row, under the actor's name.
    const hosted = namespaceActors ? NAMESPACE_MESH.exec(f.mesh) : null;
    if (hosted?.[1]) continue; // the process beside the actor that says where it runs: the actor's own row says it
    const member = runtime?.meshes.find((m) => m.id === f.meshId)?.members[f.rank];
    const row = meshFailure(f, { host: member?.host ?? runtime?.host, pid: member?.pid });
    rows.push(hosted ? { ...row, what: `actor '${hosted[2]}'` } : row);
  }
  for (const a of namespaceActors ?? []) {
    if (a.state !== "dead" || rows.some((r) => r.what === `actor '${a.name ?? a.className}'`)) continue;
    rows.push({ kind: "actor", time: 0, what: `actor '${a.name ?? a.className}'`, errorClass: "", message: "dead", causes: [], host: a.host, pid: a.pid });
  }
  return rows.sort((a, b) => b.time - a.time).slice(0, SHOWN);
}

function meshFailure(
  f: { readonly mesh: string; readonly rank: number; readonly message: string; readonly causes: readonly string[]; readonly time: number },
  where: Partial<Pick<FailureRow, "jobId" | "replica" | "host" | "pid">>,
): FailureRow {
  const split = /^([A-Za-z_$][\w$.]*): /.exec(f.causes[0] ?? "");
  return { kind: "actor", time: f.time, what: `mesh '${f.mesh}' rank ${f.rank}`, errorClass: split?.[1] ?? "", message: f.message, causes: f.causes, ...where };
}
