/// <reference types="node" preserve="true" />
/**
 * `fray/cluster`: launch, poll, follow, wait for and stop jobs on this machine
 * or on a Slurm cluster. `createCluster(spec)` picks the backend (`local`,
 * `slurm?partition=…`); a job is an entrypoint with resources, replicas and an
 * environment, and the cluster's named actors live in its namespace.
 * `createClient(spec)`/`currentClient()` give Marin's Client API over the same
 * clusters: `submit` → `JobHandle`, `waitAll`, namespace actors and groups,
 * `hostActor` (an actor in the caller's process that jobs reach by name). The
 * dashboard of a cluster's jobs (`startDashboard`) is in `fray/dashboard`.
 *
 * @example
 * ```ts
 * import { currentCluster, Entrypoint } from "fray/cluster";
 * const cluster = currentCluster(); // FRAY_CLUSTER_SPEC, else "local"; createCluster("slurm?partition=debug") picks one
 * const id = await cluster.launch({ name: "train", entrypoint: Entrypoint.fromBinary("node", ["train.js"]), resources: { cpu: 2, ram: "4g" }, replicas: 2 });
 * for await (const line of cluster.monitor(id)) console.log(line); // [replica-0] …
 * const info = await cluster.wait(id, { raiseOnFailure: true });  // JobInfo, status "succeeded"
 * ```
 * @module fray/cluster
 */
export { Cluster } from "./cluster/cluster.ts";
export { Client, type HostActorOptions, type HostedActor } from "./cluster/client/client.ts";
export type { ActorConfig, ClientActorOptions } from "./cluster/client/client-actor-options.ts";
export type { ClientActorGroup, GroupLifecycle } from "./cluster/client/client-group.ts";
export { createClient, currentClient, withClient } from "./cluster/client/current-client.ts";
export { JobAlreadyExistsError, JobHandle, waitAll, type JobWaitOptions, type LogSink, type LogsOptions, type WaitAllOptions } from "./cluster/job-handle.ts";
export type { ActorRow } from "./cluster/cluster-actors.ts";
export type { NamespaceServiceInfo } from "./cluster/namespace/service.ts";
export { createCluster, currentCluster, withCluster } from "./cluster/create.ts";
export { Entrypoint, type EntrypointFields } from "./cluster/entrypoint.ts";
export { JobFailedError, JobNotFoundError, TimeoutError } from "./cluster/errors.ts";
export { ResourceConfig, type DeviceConfig } from "./cluster/resource-config.ts";
export type {
  EnvironmentConfig,
  JobId,
  JobInfo,
  JobRequest,
  JobStatus,
  LaunchOptions,
  ReplicaError,
  TaskStatus,
  ClusterWaitOptions,
  JobControl,
} from "./cluster/types.ts";
