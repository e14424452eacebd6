// What every backend offers. Backends implement launch/poll/terminate/listJobs
// and say where a job's logs are; waiting and log streaming are built on those.
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pollUntil } from "../runtime/face/polling.ts";
import { JobFailedError } from "./errors.ts";
import { JobAlreadyExistsError, JobHandle } from "./job-handle.ts";
import { checkRequest, type BackendKind, type CheckedRequest } from "./job-request.ts";
import { killActor, listActors, type ActorRow } from "./cluster-actors.ts";
import { LogTail, type LogFile } from "./log-tail.ts";
import { differences, fingerprint, type RequestFingerprint } from "./request-fingerprint.ts";
import { withStateLock } from "./state-lock.ts";
import type { NamespaceService, NamespaceServiceInfo } from "./namespace/service.ts";
import {
  TERMINAL,
  type JobId,
  type JobInfo,
  type JobRequest,
  type JobStatus,
  type LaunchOptions,
  type TaskStatus,
  type ClusterWaitOptions,
  type JobControl,
} from "./types.ts";

/**
 * @internal
 * For the dashboard (not part of the public API): where a job's processes write their reports
 * (runtime/metrics/process-report.ts; null for a job launched before they did) and its replicas' logs.
 */
export const kJobFiles = Symbol("fray.cluster.jobFiles");

/**
 * @internal
 * For the Client (not part of the public API): the namespace service's state directory, where it keeps what a
 * service started again must know (namespace/client-hosted-records.ts).
 */
export const kNamespaceDir = Symbol("fray.cluster.namespaceDir");

export abstract class Cluster implements JobControl {
  /** The spec string this cluster was made from; replicas see it as FRAY_CLUSTER_SPEC. */
  abstract readonly spec: string;
  /** Which backend this is: requests are checked for what it can honour. */
  protected abstract readonly backend: BackendKind;
  /** Starts a checked job, recording `asked` with it; resolves once the scheduler has accepted it. */
  protected abstract submit(job: CheckedRequest, asked: RequestFingerprint): Promise<JobId>;
  /** The cluster's state directory (its jobs, locks and namespace files). */
  protected abstract readonly stateDir: string;
  /** What the job was launched with; undefined for a job an older fray launched. */
  protected abstract launchedRequest(jobId: JobId): RequestFingerprint | undefined;
  /**
   * Starts a job; resolves once the scheduler has accepted it (it may still be pending). A pending or running job of
   * the same name and the same request is adopted: its id is returned and nothing starts, unless `adoptExisting:
   * false`, which throws JobAlreadyExistsError; a request that differs from that job's throws it too, saying how.
   * The name is locked in the state directory from the look to the start, so concurrent launches start one job.
   */
  async launch(request: JobRequest, options: LaunchOptions = {}): Promise<JobId> {
    const job = checkRequest(request, this.backend);
    const adopt = options.adoptExisting ?? true;
    if (typeof adopt !== "boolean") throw new TypeError(`launch's adoptExisting must be true or false, got ${JSON.stringify(adopt)}`);
    const asked = fingerprint(job);
    const lock = join(this.stateDir, `${job.name}.launching`); // no job's directory or record has such a name
    const adoptOrRefuse = (existing: JobInfo) => {
      const was = this.launchedRequest(existing.jobId);
      const differ = was ? differences(was, asked) : [];
      if (adopt && differ.length === 0) return existing.jobId;
      throw new JobAlreadyExistsError(job.name, existing.jobId, existing.status, new JobHandle(existing.jobId, this), differ);
    };
    return withStateLock(lock, `the lock on job name ${job.name} (${lock}), held by another launch of it`, async () => {
      const existing = (await this.listJobs()).find((j) => j.name === job.name && !TERMINAL.has(j.status));
      if (existing) return adoptOrRefuse(existing);
      const jobId = await this.submit(job, asked);
      const earlier = await this.earlierLaunch(job.name, jobId);
      if (!earlier) return jobId;
      await this.withdraw(jobId);
      return adoptOrRefuse(earlier);
    });
  }

  /**
   * A pending or running job of `name` started before `jobId` by a launch the lock did not keep out (one on another
   * host: state-lock.ts); undefined on a backend whose lock keeps every launch out.
   */
  protected async earlierLaunch(_name: string, _jobId: JobId): Promise<JobInfo | undefined> {
    return undefined;
  }

  /** Cancels and forgets the job just submitted that lost a race for its name (see earlierLaunch). */
  protected async withdraw(jobId: JobId): Promise<void> {
    await this.terminate(jobId);
  }

  /** The job's status now. */
  abstract poll(jobId: JobId): Promise<JobInfo>;
  /** Stops every replica (SIGTERM, then SIGKILL after FRAY_TERMINATE_GRACE_MS); resolves once they are gone. */
  abstract terminate(jobId: JobId): Promise<void>;
  /** Every job this cluster's state directory knows, oldest first. */
  abstract listJobs(): Promise<JobInfo[]>;
  /** The job's log files, one per replica. */
  protected abstract logFiles(jobId: JobId): Promise<LogFile[]>;
  /** @internal Where the job's processes write their reports for the dashboard (FRAY_REPORT_DIR); null if they do not. */
  protected abstract reportDir(jobId: JobId): string | null;
  /** @internal See kJobFiles. */
  async [kJobFiles](jobId: JobId): Promise<{ readonly reportDir: string | null; readonly logs: readonly LogFile[] }> {
    return { reportDir: this.reportDir(jobId), logs: await this.logFiles(jobId) };
  }
  /** The process that holds the cluster's named actors (see namespace/service.ts). */
  protected abstract readonly namespaceService: NamespaceService;
  /** How often monitor() looks for new lines and the job's end. */
  protected monitorIntervalMs = 100;

  /**
   * The cluster's namespace service, where its jobs' named and detached actors
   * live; started if it is not running (every launch does this too).
   */
  namespace(): Promise<NamespaceServiceInfo> {
    return this.namespaceService.ensure();
  }

  /** @internal See kNamespaceDir. */
  get [kNamespaceDir](): string {
    return this.namespaceService.dir;
  }

  /** The cluster's token (made on first use): its namespace service and its dashboard require it. */
  token(): string {
    return this.namespaceService.token();
  }

  /** The file that holds `token()` (readable by its owner only). */
  get tokenFile(): string {
    return this.namespaceService.tokenFile;
  }

  /** The namespace service if it runs, else null; starts nothing. */
  runningNamespace(): Promise<NamespaceServiceInfo | null> {
    return this.namespaceService.running();
  }

  /** The actors in the cluster's namespace: name, class, host, pid, state, restarts, lifetime. */
  async listActors(): Promise<ActorRow[]> {
    return listActors(await this.runningNamespace());
  }

  /** Ends the named actor `name` of the cluster's namespace (a detached one too) and frees its name. */
  async killActor(name: string): Promise<void> {
    return killActor(await this.runningNamespace(), name, this.spec);
  }

  /**
   * Stops the namespace service; the actors it holds, detached ones too, end with it. It is sent SIGTERM (which
   * only its user may send); `ask: true` asks it instead, by a call with the cluster's token as `fray cluster stop`
   * does (this process's runtime then starts, with that token if it has none yet). Resolves to its pid once it has
   * exited, or null if it was not running. (It also ends by itself once idle for FRAY_NAMESPACE_IDLE_MS, or once
   * the cluster's state directory is removed.)
   */
  stopNamespace(options: { readonly ask?: boolean } = {}): Promise<number | null> {
    return this.namespaceService.stop(options.ask ?? false);
  }

  /** The log lines written so far, each prefixed `[replica-i] `. */
  async logs(jobId: JobId): Promise<string[]> {
    return new LogTail(await this.logFiles(jobId)).finish();
  }

  /** Every log line so far, then new ones as they are written, until the job ends. */
  async *monitor(jobId: JobId): AsyncGenerator<string, JobInfo> {
    const tail = new LogTail(await this.logFiles(jobId));
    for (;;) {
      const info = await this.poll(jobId);
      if (TERMINAL.has(info.status)) {
        yield* tail.finish(); // read after the end was seen: nothing written before it is missed
        return info;
      }
      yield* tail.read();
      await sleep(this.monitorIntervalMs);
    }
  }

  /** Waits for one job and returns its JobInfo; one that failed or stopped throws a JobFailedError unless `raiseOnFailure: false`. */
  wait(jobId: JobId, options?: ClusterWaitOptions): Promise<JobInfo>;
  /** Waits for all of them; unless `raiseOnFailure: false`, a JobFailedError then names every job that failed or stopped. */
  wait(jobIds: readonly JobId[], options?: ClusterWaitOptions): Promise<JobInfo[]>;
  async wait(ids: JobId | readonly JobId[], options: ClusterWaitOptions = {}): Promise<JobInfo | JobInfo[]> {
    const { raiseOnFailure = true, timeout, signal } = options;
    if (typeof raiseOnFailure !== "boolean") throw new TypeError(`wait's raiseOnFailure must be true or false, got ${JSON.stringify(raiseOnFailure)}`);
    if (signal !== undefined && !(signal instanceof AbortSignal)) throw new TypeError("wait's signal must be an AbortSignal (an AbortController's signal)");
    const list = typeof ids === "string" ? [ids] : [...ids];
    const infos = await Promise.all(list.map((id) => this.#waitOne(id, timeout, signal)));
    const failures = infos.filter((i) => i.status !== "succeeded");
    if (raiseOnFailure && failures.length > 0) throw new JobFailedError(failures);
    return typeof ids === "string" ? infos[0] : infos;
  }

  async #waitOne(jobId: JobId, timeout?: number, signal?: AbortSignal): Promise<JobInfo> {
    let status = "";
    return pollUntil(
      async () => {
        signal?.throwIfAborted();
        const info = await this.poll(jobId);
        status = info.status;
        return TERMINAL.has(info.status) && info;
      },
      {
        // Back off from 20 ms to 1 s: short jobs end quickly, long ones need not be asked often.
        intervalMs: (attempt) => Math.min(20 * 1.5 ** attempt, 1000),
        deadlineMs: timeout === undefined ? Infinity : timeout * 1000,
        bound: `wait's timeout of ${timeout} s`,
        what: () => `job ${jobId} to end (it is still ${status})`,
      },
    );
  }
}

/** What a backend recorded of a job at launch: its id, name, request (JobInfo.request) and what it could not enforce of it. */
export interface LaunchedJob {
  readonly jobId: JobId;
  readonly name: string;
  /** Absent in the records of an older fray. */
  readonly request?: string;
  /** What it was launched with, for adoption (request-fingerprint.ts); absent in the records of an older fray. */
  readonly asked?: RequestFingerprint;
  readonly notEnforced?: readonly string[];
}

/** A job's status from its replicas': running if any runs, else pending if any waits, else failed, stopped, succeeded. */
export function jobInfo(job: LaunchedJob, tasks: readonly TaskStatus[]): JobInfo {
  const { jobId, name, notEnforced } = job;
  const request = job.request ?? "not recorded (launched by an older fray)";
  const has = (s: JobStatus) => tasks.some((t) => t.status === s);
  const status: JobStatus = has("running") ? "running" : has("pending") ? "pending" : has("failed") ? "failed" : has("stopped") ? "stopped" : "succeeded";
  const counts = {
    failures: tasks.reduce((n, t) => n + (t.failures ?? 0), 0),
    preemptions: tasks.reduce((n, t) => n + (t.preemptions ?? 0), 0),
    ...(notEnforced?.length ? { notEnforced } : {}),
  };
  if (status !== "failed" && status !== "stopped") return { jobId, name, status, tasks, request, ...counts };
  // A failed job names its failed replicas, not the ones stopped because of them.
  const messages = tasks.flatMap((t, i) => (t.status === status && t.errorMessage ? [`replica ${i} ${t.errorMessage}`] : []));
  return { jobId, name, status, tasks, request, errorMessage: messages.join("; ") || status, ...counts };
}
