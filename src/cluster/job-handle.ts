// JobHandle: one job of a cluster, as Marin's Fray Client returns it from
// submit() — its status, waiting for its end (streaming its log lines
// meanwhile if asked), its logs, stopping it — and waitAll() over many. Built
// on the Cluster's own poll/wait/monitor/logs/terminate: a face, not an engine.
// JobAlreadyExistsError is here too: it hands back the existing job's handle.
import { PollTimeoutError } from "../runtime/face/polling.ts";
import { registerErrorClass } from "../wire/error-codec.ts";
import { JobFailedError } from "./errors.ts";
import type { JobControl, JobId, JobInfo, JobStatus } from "./types.ts";

/** Where streamed log lines go: `true` writes each to this process's stdout; a function gets each line. */
export type LogSink = boolean | ((line: string) => void);

export interface JobWaitOptions {
  /** Seconds to wait at most; then wait rejects with a TimeoutError (the job goes on). Default: no limit. */
  readonly timeout?: number;
  /** Throw a JobFailedError when the job ends failed or stopped (default true, as in Marin's Fray). */
  readonly raiseOnFailure?: boolean;
  /** Stream the job's log lines (`[replica-i] …`, everything so far, then live) while waiting: `true` to stdout, or to a function. Default false. */
  readonly streamLogs?: LogSink;
}

export interface LogsOptions {
  /** Only the last `maxLines` lines. Default: all of them. */
  readonly maxLines?: number;
}

export class JobHandle {
  /** @internal Use `client.submit(request)`. */
  constructor(
    readonly jobId: JobId,
    readonly cluster: JobControl,
  ) {}

  /** The job's status now: pending, running, succeeded, failed or stopped. */
  async status(): Promise<JobStatus> {
    return (await this.cluster.poll(this.jobId)).status;
  }

  /** The job's JobInfo now: status, replicas, errorMessage, retries. */
  info(): Promise<JobInfo> {
    return this.cluster.poll(this.jobId);
  }

  /** Waits for the job to end and returns its status; see JobWaitOptions. */
  async wait(options: JobWaitOptions = {}): Promise<JobStatus> {
    return (await this.#waitInfo(options, "wait")).status;
  }

  /** wait(), giving the whole JobInfo (waitAll's errors need it). */
  async #waitInfo(options: JobWaitOptions, what: string, signal?: AbortSignal): Promise<JobInfo> {
    const { timeout, raiseOnFailure, streamLogs } = checkWaitOptions(options, what);
    const info = streamLogs ? await this.#follow(streamLogs, timeout) : await this.cluster.wait(this.jobId, { timeout, raiseOnFailure: false, signal });
    if (raiseOnFailure && info.status !== "succeeded") throw new JobFailedError([info]);
    return info;
  }

  /** The job's log lines so far, each prefixed `[replica-i] `; with maxLines, only the last ones. */
  async logs(options: LogsOptions = {}): Promise<string[]> {
    const { maxLines } = options;
    if (maxLines !== undefined && (!Number.isInteger(maxLines) || maxLines < 1))
      throw new RangeError(`logs' maxLines must be a positive integer (the last lines to give), got ${String(maxLines)}`);
    const lines = await this.cluster.logs(this.jobId);
    return maxLines === undefined ? lines : lines.slice(-maxLines);
  }

  /** Stops every replica (SIGTERM, then SIGKILL after FRAY_TERMINATE_GRACE_MS); resolves once they are gone. */
  terminate(): Promise<void> {
    return this.cluster.terminate(this.jobId);
  }

  toString(): string {
    return `JobHandle(${this.jobId})`;
  }

  /** Follows the job's log lines into `sink` until it ends (or the timeout), as Cluster.monitor reads them. */
  async #follow(sink: Exclude<LogSink, false>, timeout: number | undefined): Promise<JobInfo> {
    const write = sink === true ? (line: string) => void process.stdout.write(`${line}\n`) : sink;
    const lines = this.cluster.monitor(this.jobId);
    const deadline = timeout === undefined ? undefined : Date.now() + timeout * 1000;
    let timer: NodeJS.Timeout | undefined;
    const expired =
      deadline === undefined
        ? null
        : new Promise<"expired">((resolve) => {
            timer = setTimeout(() => resolve("expired"), Math.max(0, deadline - Date.now()));
          });
    try {
      for (;;) {
        const next = lines.next();
        const step = expired ? await Promise.race([next, expired]) : await next;
        if (step === "expired") {
          void next.then(() => lines.return(undefined as never)).catch(() => {}); // stop following once the pending read is done
          const status = await this.status().catch(() => "unknown");
          throw new PollTimeoutError(
            `gave up waiting for job ${this.jobId} to end after ${timeout} s (wait's timeout of ${timeout} s); it is still ${status}: ` +
              "wait longer, or terminate() it",
          );
        }
        if (step.done) return step.value;
        write(step.value);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** @internal For waitAll: waits without raising, so waitAll decides. */
  static waitInfo(handle: JobHandle, options: JobWaitOptions, signal: AbortSignal): Promise<JobInfo> {
    return handle.#waitInfo({ ...options, raiseOnFailure: false }, "waitAll", signal);
  }
}

export interface WaitAllOptions {
  /** Seconds to wait at most, for all of them; then waitAll rejects with a TimeoutError (the jobs go on). Default: no limit. */
  readonly timeout?: number;
  /** Throw a JobFailedError when a job ends failed or stopped (default true). */
  readonly raiseOnFailure?: boolean;
  /**
   * With raiseOnFailure: wait for every job, then name every one that failed or stopped (default false: throw as
   * soon as the first one fails, as Marin's wait_all does, while the others go on).
   */
  readonly collectAll?: boolean;
}

/**
 * Waits for every job and returns their statuses in order. Unless `raiseOnFailure: false`, the first job to end
 * failed or stopped rejects it at once with a JobFailedError naming that job (the others go on; `collectAll: true`
 * waits for all and names every failure). `timeout` bounds the whole wait, in seconds.
 */
export async function waitAll(handles: readonly JobHandle[], options: WaitAllOptions = {}): Promise<JobStatus[]> {
  if (!Array.isArray(handles) || handles.some((h) => !(h instanceof JobHandle)))
    throw new TypeError("waitAll(handles, options) takes an array of JobHandles (client.submit's results)");
  if ("streamLogs" in options)
    throw new TypeError("waitAll does not stream logs (the jobs' lines would interleave); call handle.wait({ streamLogs: true }) on the one to follow");
  const { collectAll = false, ...waitOptions } = options;
  if (typeof collectAll !== "boolean") throw new TypeError(`waitAll's collectAll must be true or false, got ${JSON.stringify(collectAll)}`);
  const { raiseOnFailure } = checkWaitOptions(waitOptions, "waitAll");
  const failFast = raiseOnFailure && !collectAll;
  const stop = new AbortController(); // ends the other waits once one has thrown, so they do not keep this process alive
  const infos = await Promise.all(
    handles.map(async (h) => {
      const info = await JobHandle.waitInfo(h, waitOptions, stop.signal);
      if (failFast && info.status !== "succeeded") throw new JobFailedError([info]);
      return info;
    }),
  ).finally(() => stop.abort());
  const failures = infos.filter((i) => i.status !== "succeeded");
  if (raiseOnFailure && failures.length > 0) throw new JobFailedError(failures);
  return infos.map((i) => i.status);
}

function checkWaitOptions(options: JobWaitOptions, what: string): { timeout?: number; raiseOnFailure: boolean; streamLogs: LogSink } {
  const known = new Set(["timeout", "raiseOnFailure", "streamLogs"]);
  const unknown = Object.keys(options).filter((k) => !known.has(k));
  if (unknown.length) throw new TypeError(`unknown ${what} option ${unknown.join(", ")}; the options are timeout, raiseOnFailure, streamLogs`);
  const { timeout, raiseOnFailure = true, streamLogs = false } = options;
  if (timeout !== undefined && (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout < 0))
    throw new RangeError(`${what}'s timeout must be a non-negative number of seconds, got ${String(timeout)}`);
  if (typeof raiseOnFailure !== "boolean") throw new TypeError(`${what}'s raiseOnFailure must be true or false, got ${JSON.stringify(raiseOnFailure)}`);
  if (typeof streamLogs !== "boolean" && typeof streamLogs !== "function")
    throw new TypeError(`${what}'s streamLogs must be true (to stdout), false, or a function that takes each line, got ${typeof streamLogs}`);
  return { timeout, raiseOnFailure, streamLogs };
}

/**
 * `launch(request, { adoptExisting: false })` (or `submit`) of a name a pending or running job already has, or a
 * launch of that name whose request differs from that job's (`differences` says how: nothing is adopted silently).
 */
export class JobAlreadyExistsError extends Error {
  override name = "JobAlreadyExistsError";
  /** The existing job's handle (absent on an error that crossed from another process: it is not sent). */
  declare readonly handle?: JobHandle;
  constructor(
    readonly jobName: string,
    readonly jobId: JobId,
    status: string,
    handle?: JobHandle,
    /** How the refused request differs from the existing job's ("resources: was 1 cpu, now 2 cpu"); [] when it does not. */
    readonly differences: readonly string[] = [],
  ) {
    super(
      differences.length
        ? `a job named ${jobName} is already ${status} (${jobId}) with a different request — ${differences.join("; ")}: submit the same request ` +
            `to adopt it, wait for it or terminate it (error.handle is its handle) and submit again, or pick another name`
        : `a job named ${jobName} is already ${status} (${jobId}): wait for it or terminate it (error.handle is its handle), pick another name, or ` +
            `launch with { adoptExisting: true } to get its id`,
    );
    Object.defineProperty(this, "handle", { value: handle, enumerable: false }); // a Cluster does not travel
  }
}

registerErrorClass(JobAlreadyExistsError);
