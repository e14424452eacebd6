// Errors of `fray/cluster`.
import { registerErrorClass } from "../wire/error-codec.ts";
import type { JobHandle } from "./job-handle.ts";
import type { JobId, JobInfo } from "./types.ts";

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

/** `wait(…, { raiseOnFailure: true })` saw jobs end failed or stopped; `jobs` holds every one of them. */
export class JobFailedError extends Error {
  override name = "JobFailedError";
  constructor(readonly jobs: readonly JobInfo[]) {
    super(
      jobs.length === 1
        ? `job ${jobs[0].jobId} ${jobs[0].status}: ${jobs[0].errorMessage ?? "no message"}`
        : `${jobs.length} jobs did not succeed:\n${jobs.map((j) => `  ${j.jobId} ${j.status}: ${j.errorMessage ?? "no message"}`).join("\n")}`,
    );
  }
}

/** `launch(request, { adoptExisting: false })` (or `submit`) of a name a pending or running job already has. */
export class JobAlreadyExistsError extends Error {
  override name = "JobAlreadyExistsError";
  /** The existing job's handle (absent on an error that crossed from another process: it is not sent). */
  declare readonly handle?: JobHandle;
  constructor(
    readonly jobName: string,
    readonly jobId: JobId,
    status: string,
    handle?: JobHandle,
  ) {
    super(
      `a job named ${jobName} is already ${status} (${jobId}): wait for it or terminate it (error.handle is its handle), pick another name, or ` +
        `launch with { adoptExisting: true } to get its id`,
    );
    Object.defineProperty(this, "handle", { value: handle, enumerable: false }); // a Cluster does not travel
  }
}

registerErrorClass(JobNotFoundError);
registerErrorClass(JobAlreadyExistsError);
registerErrorClass(JobFailedError);
