// What a dashboard shows, as its sources give it: rows of jobs, tasks, endpoint
// latency and actor load, the charts' points, and the sources' interface itself.
// In a file of their own so that the files that compute them (sources, metrics,
// series, failures) need not import each other for their types.
import type { RuntimeSnapshot } from "../../runtime/face/metrics.ts";
import type { ActorRow } from "../cluster-actors.ts";
import type { LogError } from "../replica/failure-message.ts";
import type { JobInfo } from "../types.ts";
import type { JobReports, JobTasks } from "./job-reports.ts";

/** A cluster job with the last lines of its logs, why its replicas failed, and what its processes reported. */
export interface JobRow extends JobInfo {
  readonly logTail: readonly string[];
  /** Per replica: the error its log shows ("Error: disk full on /data", split), for one that failed; else null. */
  readonly replicaErrors: readonly (LogError | null)[];
  /** Per replica: when its log was last written (ms since the epoch), null without one. */
  readonly replicaEndedAt: readonly (number | null)[];
  /** The job's error in one line for its row: its first failed replica's error, else its errorMessage's first part. */
  readonly headline?: string;
  /** What the job's processes reported (their metrics aside): processes, tasks, meshes, failures. */
  readonly reports: Omit<JobReports, "metrics">;
}

/** One job for its page: its row, its whole log (the last LOG_LINES lines) and its processes' meshes with every member. */
export interface JobDetail {
  readonly job: JobRow;
  readonly log: readonly string[];
  /** Lines left out at the start (the log is longer than LOG_LINES). */
  readonly logSkipped: number;
}

/** Tasks by state (`pending`, `running`, `done`, `failed`, …) and, optionally, the latest ones. */
export interface TasksSnapshot {
  readonly counts: Readonly<Record<string, number>>;
  readonly recent?: readonly { readonly id: string; readonly name: string; readonly state: string; readonly error?: string }[];
  /** The failed tasks of this process (not of a cluster's jobs: those are in their JobRow), newest first, for the Failures panel. */
  readonly failedTasks?: JobTasks["failedTasks"];
}

/** Call latency of one endpoint (`Class.method`). */
export interface LatencyRow {
  readonly endpoint: string;
  readonly count: number;
  readonly meanMs?: number;
  readonly p50Ms?: number;
  readonly p99Ms?: number;
}

/** Load of one actor, by its key (`meshId.rank`) or `mesh[rank]`, or of every actor of a class. */
export interface ActorLoad {
  readonly actor: string;
  /** Set when the figures are the whole class's (metrics are labelled by class). */
  readonly className?: string;
  readonly mailboxDepth?: number;
  readonly messagesPerSec?: number;
}

/** The large values the processes hold for others to read, added up over the processes shown (metrics of slice 4, docs/design/object-store.md). */
export interface ObjectsSnapshot {
  /** Bytes in memory now, and spilled to disk now. */
  readonly heldBytes: number;
  readonly spilledBytes: number;
  /** Bytes written to spill directories, and read back from them, so far. */
  readonly spilledBytesTotal: number;
  readonly restoredBytesTotal: number;
  /** Bytes of held values read so far, by path: same-process, shm, socket, tcp. */
  readonly transferBytes: Readonly<Record<string, number>>;
}

/** One part of the picture: a function the dashboard calls on each refresh (a throw shows in its section). */
export type Source<T> = () => T | Promise<T>;

export interface DashboardSources {
  /** This process's meshes, actors and failures (`runtimeSnapshot`). */
  readonly runtime?: Source<RuntimeSnapshot>;
  /** A cluster's jobs, each with its log tail. */
  readonly jobs?: Source<readonly JobRow[]>;
  /** The actors a cluster's namespace service hosts. */
  readonly namespaceActors?: Source<readonly ActorRow[]>;
  readonly tasks?: Source<TasksSnapshot>;
  readonly latency?: Source<readonly LatencyRow[]>;
  /** Held, spilled, restored and transferred bytes of large values, where metrics are kept. */
  readonly objects?: Source<ObjectsSnapshot>;
  /** Mailbox depth and message rate per actor, where metrics are kept. */
  readonly actorLoad?: Source<readonly ActorLoad[]>;
  /** Prometheus text, served at /metrics. */
  readonly metrics?: Source<string>;
  /** The charts' figures over the last minutes. */
  readonly series?: Source<Series>;
  /** One job's page (GET /api/job?id=…). */
  readonly job?: (jobId: string) => Promise<JobDetail>;
}

/** One point of the charts; a figure is absent where it is not known (no metrics, first sample). */
export interface SeriesPoint {
  readonly time: number;
  readonly tasksPerSec?: number;
  readonly messagesPerSec?: number;
  readonly bytesPerSec?: number;
  readonly bufferBytesPerSec?: number;
  readonly collectiveBytesPerSec?: number;
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  /** By process key: CPU in % of one core, and resident memory in bytes. */
  readonly cpuPercent: Readonly<Record<string, number>>;
  readonly rssBytes: Readonly<Record<string, number>>;
}

export interface Series {
  readonly points: readonly SeriesPoint[];
  /** The processes the points name, by key: "replica 0 · pid 4242 on vm". */
  readonly processes: Readonly<Record<string, string>>;
  /** Whether the metrics that rates and latency come from are on anywhere (FRAY_METRICS is 1 by default). */
  readonly metricsOn: boolean;
}
