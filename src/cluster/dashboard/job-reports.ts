// What a cluster job's processes reported (runtime/metrics/process-report.ts),
// read from the job's report directory: each file parsed again only when it
// changed. A process is `alive` while it reports, `exited` once it wrote its
// last report, and `gone` when it stopped without one (killed): where its
// pid can be asked after (same host, boot and pid namespace) its pid is gone,
// elsewhere its report is older than a few intervals. A file that cannot be
// read is listed, not shown; reports that outlived their process by
// FRAY_REPORT_KEEP_MS are removed.
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { config } from "../settings.ts";
import { reporterRuns, reportOutlived, type ProcessReport } from "../../runtime/face/metrics.ts";
import type { MetricsJson } from "../../runtime/face/prometheus.ts";
import type { FailureRecord, MeshSnapshot } from "../../runtime/face/supervision.ts";
import type { FailedTask, TasksReport } from "../../job/tasks/task-history.ts";
import type { LogError } from "../replica/failure-message.ts";

/** One process of a job, as the dashboard shows it. */
export interface ProcessRow {
  readonly pid: number;
  readonly host: string;
  readonly replica: number | null;
  readonly process: number | null;
  /** A worker's parent (a proc address); null for a replica's own process. */
  readonly parentAddr: string | null;
  readonly state: "alive" | "exited" | "gone";
  readonly startedAt: number;
  readonly reportedAt: number;
  readonly cpuSeconds: number;
  readonly rssBytes: number;
}

/** Where something in a job ran: its replica, process and host. */
export interface Place {
  /** The job; absent for the dashboard's own process. */
  readonly jobId?: string;
  readonly replica: number | null;
  readonly pid: number;
  readonly host: string;
}

/** Tasks a job's processes submitted, summed, with the last failed ones (newest first) and where they ran. */
export interface JobTasks {
  readonly submitted: number;
  readonly done: number;
  readonly failed: number;
  readonly retried: number;
  /** Submitted, neither done nor failed: queued or running. */
  readonly inFlight: number;
  readonly failedTasks: readonly (FailedTask & { readonly where: Place; readonly workerPid?: number })[];
}

/** Everything a job's processes reported. */
export interface JobReports {
  readonly processes: readonly ProcessRow[];
  readonly tasks: JobTasks;
  /** The meshes its live processes own, each with its owner. */
  readonly meshes: readonly (MeshSnapshot & { readonly owner: Place & { readonly addr: string } })[];
  readonly failures: readonly (FailureRecord & { readonly owner: Place })[];
  /** Each process's own metrics (none from a process with FRAY_METRICS=0). */
  readonly metrics: readonly MetricsJson[];
  /** Report files that could not be read (cut short, not JSON, not readable), left out of the rest. */
  readonly unreadable: readonly { readonly file: string; readonly error: string }[];
}

/** Failed tasks shown per job. */
const FAILED_TASKS = 50;

export class ReportReader {
  readonly #cache = new Map<string, { mtimeMs: number; size: number; report: ProcessReport }>();
  /** What failed replicas' logs say went wrong, by log path, with the log's mtime then (kept for whoever reads the logs). */
  readonly logErrors = new Map<string, { readonly mtimeMs: number | null; readonly error: LogError | null }>();

  /** The reports in `dir` (none for null or a missing directory). */
  read(jobId: string, dir: string | null): JobReports {
    const { reports, unreadable } = dir === null ? { reports: [], unreadable: [] } : this.#files(dir);
    const states = new Map(reports.map((r) => [r, r.exited ? ("exited" as const) : isGone(r) ? ("gone" as const) : ("alive" as const)]));
    const place = (r: ProcessReport): Place => ({ jobId, replica: r.replica, pid: r.pid, host: r.host });
    const tasks = reports.flatMap((r) => {
      const t = r.parts.tasks as TasksReport | undefined;
      return t ? [{ report: r, tasks: t }] : [];
    });
    const sum = (k: "submitted" | "done" | "failed" | "retried") => tasks.reduce((n, t) => n + t.tasks[k], 0);
    const failedTasks = tasks
      .flatMap(({ report, tasks }) =>
        tasks.failedTasks.map((f) => {
          const executors = report.snapshot.meshes.find((m) => m.name === "fray-executors");
          const workerPid = f.worker === null ? undefined : executors?.members[f.worker]?.pid;
          return { ...f, where: place(report), ...(workerPid === undefined ? {} : { workerPid }) };
        }),
      )
      .sort((a, b) => b.time - a.time)
      .slice(0, FAILED_TASKS);
    return {
      processes: reports.map((r) => ({
        pid: r.pid,
        host: r.host,
        replica: r.replica,
        process: r.process,
        parentAddr: r.parentAddr,
        state: states.get(r)!,
        startedAt: r.startedAt,
        reportedAt: r.time,
        cpuSeconds: r.cpuSeconds,
        rssBytes: r.rssBytes,
      })),
      tasks: {
        submitted: sum("submitted"),
        done: sum("done"),
        failed: sum("failed"),
        retried: sum("retried"),
        inFlight: Math.max(0, sum("submitted") - sum("done") - sum("failed")),
        failedTasks,
      },
      // The meshes of live processes only: an ended one's last word shows its meshes stopped, as if failed.
      meshes: reports
        .filter((r) => states.get(r) === "alive")
        .flatMap((r) => r.snapshot.meshes.map((m) => ({ ...m, owner: { ...place(r), addr: r.snapshot.addr } }))),
      failures: reports.flatMap((r) => r.snapshot.failures.map((f) => ({ ...f, owner: place(r) }))),
      metrics: reports.flatMap((r) => (r.metrics ? [r.metrics] : [])),
      unreadable,
    };
  }

  #files(dir: string): { reports: ProcessReport[]; unreadable: { file: string; error: string }[] } {
    const unreadable: { file: string; error: string }[] = [];
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith(".json"));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return { reports: [], unreadable };
      throw err;
    }
    const reports = names.flatMap((name) => {
      const path = join(dir, name);
      let mtimeMs: number | null = null;
      let report: ProcessReport | null = null;
      try {
        const stats = statSync(path);
        mtimeMs = stats.mtimeMs;
        const cached = this.#cache.get(path);
        if (cached && cached.mtimeMs === stats.mtimeMs && cached.size === stats.size) report = cached.report;
        else {
          report = JSON.parse(readFileSync(path, "utf8")) as ProcessReport;
          this.#cache.set(path, { mtimeMs: stats.mtimeMs, size: stats.size, report });
        }
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return []; // removed meanwhile
        unreadable.push({ file: path, error: (err as Error).message });
      }
      if (mtimeMs !== null && reportOutlived(report, mtimeMs)) {
        this.#cache.delete(path);
        try {
          rmSync(path, { force: true });
          if (report === null) unreadable.pop();
          return [];
        } catch {
          // Not this process's to remove (another user's directory): it is shown as it is.
        }
      }
      return report ? [report] : [];
    });
    return { reports, unreadable };
  }
}

/** A process that stopped reporting without a last word: killed, or its host is gone. */
function isGone(report: ProcessReport): boolean {
  const runs = reporterRuns(report);
  if (runs !== null) return !runs;
  return Date.now() - report.time > 5_000 + 3 * config.reportIntervalMs;
}
