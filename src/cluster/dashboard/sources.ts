// Where a dashboard's picture comes from: provider functions it calls each
// time a page or API asks (and every FRAY_DASHBOARD_REFRESH_MS while a page
// listens for updates). Each is optional; one that fails leaves its section
// empty with the error shown, not the whole page.
import type { RuntimeSnapshot } from "../../runtime/metrics/runtime-snapshot.ts";
import { collectMetrics, runtimeSnapshot } from "../../runtime/runtime.ts";
import type { ActorRow } from "../cluster-actors.ts";
import type { Cluster } from "../cluster.ts";
import type { JobInfo } from "../types.ts";
import { metricsSources } from "./metrics.ts";

/** A cluster job with the last lines of its logs. */
export interface JobRow extends JobInfo {
  readonly logTail: readonly string[];
}

/** Tasks by state (`pending`, `running`, `done`, `failed`, …) and, optionally, the latest ones. */
export interface TasksSnapshot {
  readonly counts: Readonly<Record<string, number>>;
  readonly recent?: readonly { readonly id: string; readonly name: string; readonly state: string; readonly error?: string }[];
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
  /** Mailbox depth and message rate per actor, where metrics are kept. */
  readonly actorLoad?: Source<readonly ActorLoad[]>;
  /** Prometheus text, served at /metrics. */
  readonly metrics?: Source<string>;
}

/** Everything the page shows; a source that is absent or failed is null, with its error in `errors`. */
export interface DashboardState {
  readonly time: number;
  readonly runtime: RuntimeSnapshot | null;
  readonly jobs: readonly JobRow[] | null;
  readonly namespaceActors: readonly ActorRow[] | null;
  readonly tasks: TasksSnapshot | null;
  readonly latency: readonly LatencyRow[] | null;
  readonly actorLoad: readonly ActorLoad[] | null;
  readonly errors: Readonly<Record<string, string>>;
}

/** Log lines shown per job, and jobs whose logs are read (the newest). */
const TAIL_LINES = 20;
const JOBS_WITH_TAILS = 20;

/** This process's runtime, and the metrics of it and every process it started (zero where FRAY_METRICS=0). */
export function runtimeSources(): DashboardSources {
  return { runtime: () => runtimeSnapshot(), ...metricsSources(collectMetrics) };
}

/** A cluster's jobs (the newest with their log tails) and its namespace's actors. */
export function clusterSources(cluster: Cluster): DashboardSources {
  return {
    jobs: async () => {
      const jobs = await cluster.listJobs();
      return Promise.all(
        jobs.map(async (job, i) => ({ ...job, logTail: i >= jobs.length - JOBS_WITH_TAILS ? (await cluster.logs(job.jobId)).slice(-TAIL_LINES) : [] })),
      );
    },
    namespaceActors: () => cluster.listActors(),
  };
}

const KEYS = ["runtime", "jobs", "namespaceActors", "tasks", "latency", "actorLoad"] as const;

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
  const state = Object.fromEntries(KEYS.map((k, i) => [k, values[i]]));
  return { time: Date.now(), ...state, errors } as DashboardState;
}
