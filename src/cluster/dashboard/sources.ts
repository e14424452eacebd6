// Where a dashboard's picture comes from: provider functions it calls each
// time a page or API asks (and every FRAY_DASHBOARD_REFRESH_MS while a page
// listens for updates). Each is optional; one that fails leaves its section
// empty with the error shown, not the whole page.
import { statSync } from "node:fs";
import { collectMetrics, metricsOn, runtimeSnapshot, type RuntimeSnapshot } from "../../runtime/face/metrics.ts";
import { hasProc } from "../../runtime/face/procs.ts";
import type { ActorRow } from "../cluster-actors.ts";
import { kJobFiles, type Cluster } from "../cluster.ts";
import { logError } from "../replica/failure-message.ts";
import type { JobInfo } from "../types.ts";
import { failureRows, type FailureRow } from "./failures.ts";
import { ReportReader, type JobTasks } from "./job-reports.ts";
import { ownProcesses, ownTasks } from "./own-process.ts";
import { metricsSources, type MetricFamily, type MetricsSnapshot } from "./metrics.ts";
import type { ActorLoad, DashboardSources, JobRow, LatencyRow, ObjectsSnapshot, Series, Source, TasksSnapshot } from "./rows.ts";
import { SeriesRecorder, type SampleInput } from "./series.ts";

/** Everything the page shows; a source that is absent or failed is null, with its error in `errors`. */
export interface DashboardState {
  readonly time: number;
  readonly runtime: RuntimeSnapshot | null;
  readonly jobs: readonly JobRow[] | null;
  readonly namespaceActors: readonly ActorRow[] | null;
  readonly tasks: TasksSnapshot | null;
  readonly latency: readonly LatencyRow[] | null;
  readonly objects: ObjectsSnapshot | null;
  readonly actorLoad: readonly ActorLoad[] | null;
  readonly series: Series | null;
  /** Everything that failed, newest first (from jobs, runtime and namespace actors). */
  readonly failures: readonly FailureRow[];
  readonly errors: Readonly<Record<string, string>>;
}

/** Log lines shown per job, jobs whose logs and reports are read (the newest), and lines on a job's page. */
const TAIL_LINES = 20;
const JOBS_WITH_TAILS = 20;
const LOG_LINES = 10_000;

/**
 * This process's runtime and tasks, the metrics of it and every process it started (zero where FRAY_METRICS=0),
 * and the CPU and memory of it and of the processes it started on this host.
 */
export function runtimeSources(): DashboardSources {
  const recorder = new SeriesRecorder();
  const series = async (): Promise<SampleInput> => {
    const json = metricsOn ? ((await collectMetrics()).json as readonly MetricFamily[]) : [];
    const tasks = ownTasks(null);
    return { metrics: json, tasksEnded: tasks.done + tasks.failed, processes: ownProcesses(runtimeSnapshot()) };
  };
  return {
    runtime: () => runtimeSnapshot(),
    ...metricsSources(collectMetrics),
    tasks: () => tasksSnapshot([ownTasks(runtimeSnapshot())], true),
    series: () => recorder.sample(series),
  };
}

/** Counts of `all` added up, the newest failed ones of each, and `own`'s (the first) failed tasks for the Failures panel. */
function tasksSnapshot(all: readonly JobTasks[], own: boolean): TasksSnapshot {
  const sum = (k: "submitted" | "done" | "failed" | "retried" | "inFlight") => all.reduce((n, t) => n + t[k], 0);
  const failed = all.flatMap((t) => t.failedTasks).sort((a, b) => b.time - a.time);
  return {
    counts: { submitted: sum("submitted"), "queued or running": sum("inFlight"), done: sum("done"), failed: sum("failed"), retried: sum("retried") },
    recent: failed.slice(0, 20).map((t) => ({ id: t.id, name: t.name, state: "failed", error: `${t.errorClass}: ${t.message}` })),
    ...(own && all.length > 0 ? { failedTasks: all[0].failedTasks } : {}),
  };
}

/**
 * A cluster's jobs (the newest with their log tails, replicas' errors and what their processes reported), its
 * namespace's actors, the tasks of its jobs, and metrics: this process's and its jobs' (unless FRAY_METRICS=0 there).
 */
export function clusterSources(cluster: Cluster): DashboardSources {
  const reader = new ReportReader();
  const recorder = new SeriesRecorder();
  let last: { at: number; loaded: Promise<{ rows: JobRow[]; metrics: MetricFamily[][] }> } | null = null;
  const load = () => {
    const now = Date.now();
    if (!last || now - last.at > 250) last = { at: now, loaded: loadJobs(cluster, reader) };
    return last.loaded;
  };
  const merged = async (): Promise<MetricsSnapshot> => {
    // This process's own only if it has a runtime: making one here would take a token of its own before the namespace's.
    const own = metricsOn && hasProc() ? [(await collectMetrics()).json as unknown as MetricFamily[]] : [];
    const jsons = [...own, ...(await load()).metrics];
    if (jsons.length === 0) return { text: "", json: [] };
    const registry = await (await import("../../runtime/face/prometheus.ts")).mergeMetrics(jsons as never);
    return { text: await registry.metrics(), json: (await registry.getMetricsAsJSON()) as unknown as MetricFamily[] };
  };
  /** This process's tasks first, then its jobs'. */
  const allTasks = async () => [ownTasks(hasProc() ? runtimeSnapshot() : null), ...(await load()).rows.map((j) => j.reports.tasks)];
  return {
    jobs: async () => (await load()).rows,
    namespaceActors: () => cluster.listActors(),
    ...metricsSources(merged),
    tasks: async () => tasksSnapshot(await allTasks(), true),
    series: () =>
      recorder.sample(async () => {
        const [tasks, { json }, { rows }] = await Promise.all([allTasks(), merged(), load()]);
        const processes = rows.flatMap((j) =>
          j.reports.processes
            .filter((p) => p.state === "alive")
            .map((p) => ({
              key: `${p.host}/${p.pid}`,
              label: `${j.jobId}${p.replica === null ? "" : ` r${p.replica}`}${p.parentAddr ? " worker" : ""} · pid ${p.pid}`,
              cpuSeconds: p.cpuSeconds,
              rssBytes: p.rssBytes,
              time: p.reportedAt,
            })),
        );
        // The figures are as new as the newest report (unless this process's own, read now, are among them).
        const reported = Math.max(0, ...rows.flatMap((j) => j.reports.processes.map((p) => p.reportedAt)));
        const dataTime = metricsOn && hasProc() ? Date.now() : reported;
        const tasksEnded = tasks.reduce((n, t) => n + t.done + t.failed, 0);
        return { metrics: json, tasksEnded, dataTime, processes: [...ownProcesses(hasProc() ? runtimeSnapshot() : null), ...processes] };
      }),
    job: async (jobId) => {
      const [info, log] = await Promise.all([cluster.poll(jobId), cluster.logs(jobId)]);
      return { job: await jobRow(cluster, reader, info, true), log: log.slice(-LOG_LINES), logSkipped: Math.max(0, log.length - LOG_LINES) };
    },
  };
}

async function loadJobs(cluster: Cluster, reader: ReportReader): Promise<{ rows: JobRow[]; metrics: MetricFamily[][] }> {
  const jobs = await cluster.listJobs();
  const metrics: MetricFamily[][] = [];
  const rows = await Promise.all(
    jobs.map(async (job, i) => {
      const recent = i >= jobs.length - JOBS_WITH_TAILS;
      const row = await jobRow(cluster, reader, job, recent, (m) => metrics.push(...m));
      return row;
    }),
  );
  return { rows, metrics };
}

/** `job` with what the dashboard adds (`full`: its log tail and reports too; else only its replicas' errors). */
async function jobRow(cluster: Cluster, reader: ReportReader, job: JobInfo, full: boolean, metrics?: (m: MetricFamily[][]) => void): Promise<JobRow> {
  const files = await cluster[kJobFiles](job.jobId);
  const failed = (i: number) => job.tasks[i]?.status === "failed" || job.tasks[i]?.status === "stopped";
  const replicaEndedAt = files.logs.map((log) => {
    try {
      return statSync(log.path).mtimeMs;
    } catch {
      return null;
    }
  });
  const replicaErrors = files.logs.map((log, i) => {
    if (!failed(i)) return null;
    const known = reader.logErrors.get(log.path);
    if (known && known.mtimeMs === replicaEndedAt[i]) return known.error;
    const error = logError(log.path); // the log's last 16 KiB, read again only once it changed
    reader.logErrors.set(log.path, { mtimeMs: replicaEndedAt[i], error });
    return error;
  });
  const first = replicaErrors.find((e) => e !== null);
  const headline = first ? (first.errorClass ? `${first.errorClass}: ${first.message}` : first.message) : job.errorMessage?.split(" | ")[0];
  const { metrics: jsons, ...reports } = full ? reader.read(job.jobId, files.reportDir) : reader.read(job.jobId, null);
  metrics?.(jsons as unknown as MetricFamily[][]);
  const logTail = full ? (await cluster.logs(job.jobId)).slice(-TAIL_LINES) : [];
  return { ...job, logTail, replicaErrors, replicaEndedAt, ...(headline ? { headline } : {}), reports };
}

const KEYS = ["runtime", "jobs", "namespaceActors", "tasks", "latency", "objects", "actorLoad", "series"] as const;

/** Asks every source at once. */
export async function collectState(sources: DashboardSources): Promise<DashboardState> {
  const errors: Record<string, string> = {};
  const values = await Promise.all(
    KEYS.map(async (key) => {
      const source = sources[key] as Source<unknown> | undefined;
      if (!source) return null;
      try {
        return await source();
      } catch (err) {
        errors[key] = (err as Error)?.message ?? String(err);
        return null;
      }
    }),
  );
  const state = Object.fromEntries(KEYS.map((k, i) => [k, values[i]])) as Omit<DashboardState, "time" | "failures" | "errors">;
  return { time: Date.now(), ...state, failures: failureRows(state.jobs, state.runtime, state.namespaceActors, state.tasks), errors };
}
