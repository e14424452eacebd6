// Errors of `fray/cluster` (JobAlreadyExistsError, which carries a JobHandle, is in job-handle.ts).
import { registerErrorClass } from "../wire/error-codec.ts";
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

registerErrorClass(JobNotFoundError);
registerErrorClass(JobFailedError);
