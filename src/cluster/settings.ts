// The cluster layer's settings: cluster jobs, their namespace service and dashboard, Slurm, npm environments, and what a cluster sets in its replicas.
// Declared once, here, through the runtime's registry (the settings table is printed from every layer's);
// this layer's code reads them, and the runtime's, as `config.<name>` from this file.
import { declareSettings, ms, runtimeSettings, type Setting } from "../runtime/face/settings.ts";

export const CLUSTER_SETTINGS = {
  terminateGraceMs: ms(
    "FRAY_TERMINATE_GRACE_MS",
    5_000,
    "how long a cluster job's processes get after SIGTERM before SIGKILL (`terminate()`, `fray job stop`), and again after SIGKILL before " +
      "`terminate()` gives up on them",
  ),
  namespaceStartTimeoutMs: ms("FRAY_NAMESPACE_START_TIMEOUT_MS", 60_000, "how long a cluster waits for its namespace service to start"),
  namespaceIdleMs: {
    env: "FRAY_NAMESPACE_IDLE_MS",
    kind: "ms",
    default: 600_000,
    min: 1_000,
    doc:
      "how long a cluster's namespace service runs idle — no pending or running job, no hosted actor (detached or not), no connected " +
      "client or open dashboard page, not asked for by a launch — before it exits by itself (the next launch starts it again); it also " +
      "exits once its state directory is removed, and at `fray cluster stop`",
  },
  npmInstallTimeoutMs: ms(
    "FRAY_NPM_INSTALL_TIMEOUT_MS",
    600_000,
    "how long a cluster's `launch()` lets `npm install` of a job's `environment.npmPackages` run (once per set of packages: later jobs with " +
      "the same set reuse the install)",
  ),
  scancelTimeoutMs: ms(
    "FRAY_SCANCEL_TIMEOUT_MS",
    120_000,
    "how long `SlurmJob.kill()` and a Slurm cluster's `terminate()` wait, after `scancel`, for Slurm to report the jobs gone (Slurm's KillWait comes first)",
  ),
  slurmQueryMs: ms(
    "FRAY_SLURM_QUERY_MS",
    1_000,
    "the least time between two `squeue` queries of a process about its Slurm cluster's jobs: `poll()`, `wait()`, `monitor()`, `listJobs()` and " +
      "the dashboard share their answers; each names only the cluster's jobs that have not ended",
  ),
  slurmQueryMaxMs: ms(
    "FRAY_SLURM_QUERY_MAX_MS",
    10_000,
    "how far the time between a process's `squeue` queries about its Slurm cluster's jobs doubles, from `FRAY_SLURM_QUERY_MS`, while their " +
      "states do not change (a replica's exit record is read from its file each time: a job's end is seen without waiting for Slurm)",
  ),
  slurmRivalRecordTimeoutMs: ms(
    "FRAY_SLURM_RIVAL_RECORD_TIMEOUT_MS",
    60_000,
    "how long a Slurm launch whose job name an earlier `sbatch` from another host (sharing the state directory) took waits for that " +
      "launch to record its job, to adopt it; past it, this launch cancels its own job and fails, naming the earlier one",
  ),
  dashboardRefreshMs: ms(
    "FRAY_DASHBOARD_REFRESH_MS",
    1_000,
    "how often a dashboard asks its sources (jobs, actors, failures, metrics) for news to push to open pages",
  ),
  dashboardSessionMs: ms("FRAY_DASHBOARD_SESSION_MS", 43_200_000, "how long a dashboard sign-in (its session cookie) lasts"),
  clusterSpec: { env: "FRAY_CLUSTER_SPEC", kind: "text", default: "local", doc: "the cluster `currentCluster()` and `fray job` use; replicas get it set" },
  clusterDir: {
    env: "FRAY_CLUSTER_DIR",
    kind: "path",
    default: "~/.fray/cluster",
    doc: "where cluster jobs' state lives when the spec has no `dir=`, and `SlurmJob`s' job directories (in `slurm-jobs/`); on Slurm every node must see it",
  },
  namespaceListen: {
    env: "FRAY_NAMESPACE_LISTEN",
    kind: "text",
    default: "tcp://127.0.0.1:0",
    doc:
      "where a cluster's namespace service listens when a job first needs it (port 0: a free port, kept for its restarts); for Slurm on " +
      "several nodes give an address every node reaches, e.g. `tcp://login1:7345` or ADVERTISE@BIND",
  },
  dashboardListen: {
    env: "FRAY_DASHBOARD_LISTEN",
    kind: "text",
    default: "127.0.0.1:0",
    doc:
      "where a cluster's namespace service serves its dashboard (`host:port`; port 0: a free one, recorded in its `service.json`); every " +
      "request needs the cluster's token",
  },
  replicaCount: { env: "FRAY_REPLICA_COUNT", kind: "given", doc: "how many replicas the cluster job has" },
  processCount: { env: "FRAY_PROCESS_COUNT", kind: "given", doc: "how many processes each replica of the cluster job runs (`processesPerTask`)" },
  replicaExitFile: { env: "FRAY_REPLICA_EXIT_FILE", kind: "given", doc: "the file where a replica's exit codes and error are recorded" },
} as const satisfies Record<string, Setting>;

export const clusterSettings = declareSettings(CLUSTER_SETTINGS, runtimeSettings);
export const { config, optionOrSetting, settingName, settingNow } = clusterSettings;
