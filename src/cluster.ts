// `fray/cluster`: launch, poll, follow, wait for and stop jobs on a local machine or a Slurm cluster.
export { Cluster } from "./cluster/cluster.ts";
export type { ActorRow } from "./cluster/cluster-actors.ts";
export type { NamespaceServiceInfo } from "./cluster/namespace/service.ts";
export { createCluster, currentCluster, withCluster } from "./cluster/create.ts";
export { Entrypoint, type EntrypointFields } from "./cluster/entrypoint.ts";
export { JobAlreadyExistsError, JobFailedError, JobNotFoundError } from "./cluster/errors.ts";
export { ResourceConfig } from "./cluster/resource-config.ts";
export type { DeviceConfig, EnvironmentConfig, JobId, JobInfo, JobRequest, JobStatus, LaunchOptions, TaskStatus, WaitOptions } from "./cluster/types.ts";
export { startDashboard, type Dashboard, type DashboardOptions } from "./cluster/dashboard/server.ts";
export { clusterSources, runtimeSources, type ActorLoad, type DashboardSources, type DashboardState, type JobRow, type LatencyRow, type TasksSnapshot } from "./cluster/dashboard/sources.ts";
export { latencyRows, metricsSources, type MetricFamily, type MetricsSnapshot } from "./cluster/dashboard/metrics.ts";
export type { LocalActor, RuntimeSnapshot } from "./runtime/metrics/runtime-snapshot.ts";
export { runtimeSnapshot } from "./runtime/runtime.ts";
export type { MeshSnapshot, MemberSnapshot } from "./runtime/supervision/supervisor.ts";
export type { FailureRecord } from "./runtime/supervision/failure-history.ts";
