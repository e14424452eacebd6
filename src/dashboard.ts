/// <reference types="node" preserve="true" />
/**
 * `fray/dashboard`: a live web page of a cluster's jobs and actors and of this
 * process's meshes — failures first (failed jobs, tasks and actors with their
 * error and cause chain), live charts, a page per job with its log, topology,
 * actors, tasks, per-endpoint latency — served on loopback by default, every
 * page and API behind the token. `sources` replaces what it shows; the functions here build
 * them from a cluster, this process's runtime, or a metrics collection.
 *
 * @example
 * ```ts
 * import { createCluster } from "fray/cluster";
 * import { startDashboard } from "fray/dashboard";
 * const cluster = createCluster("local");
 * const dashboard = await startDashboard({ token: cluster.token(), cluster });
 * console.log(dashboard.url); // http://127.0.0.1:PORT (no trailing slash: `${dashboard.url}/metrics`)
 * await dashboard.close();
 * ```
 * @module fray/dashboard
 */
export { startDashboard, type Dashboard, type DashboardOptions } from "./cluster/dashboard/server.ts";
export { clusterSources, runtimeSources, type DashboardState } from "./cluster/dashboard/sources.ts";
export type {
  ActorLoad,
  DashboardSources,
  JobDetail,
  JobRow,
  LatencyRow,
  ObjectsSnapshot,
  Series,
  SeriesPoint,
  Source,
  TasksSnapshot,
} from "./cluster/dashboard/rows.ts";
export { latencyRows, metricsSources, type MetricFamily, type MetricsSnapshot } from "./cluster/dashboard/metrics.ts";
export type { FailureRow } from "./cluster/dashboard/failures.ts";
export type { JobReports, JobTasks, Place, ProcessRow } from "./cluster/dashboard/job-reports.ts";
export type { LogError } from "./cluster/replica/failure-message.ts";
export type { FailedTask } from "./job/tasks/task-history.ts";
export { runtimeSnapshot, type LocalActor, type RuntimeSnapshot } from "./runtime/face/metrics.ts";
export type { FailureRecord, MemberSnapshot, MeshSnapshot } from "./runtime/face/supervision.ts";
