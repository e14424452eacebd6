// Errors of `fray/cluster` (JobAlreadyExistsError, which carries a JobHandle, is in job-handle.ts).
import { registerErrorClass } from "../wire/error-codec.ts";
import type { JobId, JobInfo, ReplicaError } from "./types.ts";

/** poll/wait/terminate/monitor of an id this cluster never launched (or whose state was deleted). */
export class JobNotFoundError extends Error {
  override name = "JobNotFoundError";
  constructor(
    readonly jobId: JobId,
    where: string,
  ) {
    super(`Job ID not found: ${JSON.stringify(jobId)} is not a job of ${where}; 'fray job list' shows the known ones`);
  }
}

/**
 * A wait saw jobs end failed or stopped; `jobs` holds them (waitAll: the first to fail; with collectAll, and
 * Cluster.wait on a list, every one). `cause` is the first one's error as its replica threw it — an Error of that
 * `name` and `message`, whose own `cause` is the next "[cause]: …" — when it threw one.
 */
export class JobFailedError extends Error {
  override name = "JobFailedError";
  constructor(readonly jobs: readonly JobInfo[]) {
    const error = jobs.flatMap((j) => j.tasks.flatMap((t) => (t.error ? [t.error] : [])))[0];
    super(
      jobs.length === 1
        ? `job ${jobs[0].jobId} ${jobs[0].status}: ${jobs[0].errorMessage ?? "no message"}`
        : `${jobs.length} jobs did not succeed:\n${jobs.map((j) => `  ${j.jobId} ${j.status}: ${j.errorMessage ?? "no message"}`).join("\n")}`,
      error ? { cause: asError(error) } : undefined,
    );
  }
}

/** The replica's error as an Error of its class, its causes chained. */
function asError(error: ReplicaError): Error {
  return error.causes.reduceRight<Error | undefined>((inner, line, i) => {
    const split = i === 0 ? { name: error.errorClass, message: error.message } : /^(?<name>[A-Za-z_$][\w$.]*): (?<message>.*)$/.exec(line)?.groups;
    const made = new Error(split?.message ?? line, inner ? { cause: inner } : undefined);
    if (split?.name) made.name = split.name;
    made.stack = `${made.name}: ${made.message}`; // thrown in the job: no stack of this process is its
    return made;
  }, undefined)!;
}

registerErrorClass(JobNotFoundError);
registerErrorClass(JobFailedError);

/** A wait (JobHandle.wait, waitAll, Cluster.wait) that reached its `timeout`: the jobs go on. */
export { PollTimeoutError as TimeoutError } from "../runtime/face/polling.ts";
