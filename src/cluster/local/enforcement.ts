// How the local cluster will enforce a job's request on this machine, decided
// at launch: pinning (taskset), the memory limit (memory-limit.ts), and what
// it cannot enforce, which JobInfo.notEnforced reports.
import { spawnSync } from "node:child_process";
import type { CheckedRequest } from "../job-request.ts";
import { bytes } from "../size.ts";
import type { EnforcementPlan } from "./job-record.ts";
import { memoryLimitKind } from "./memory-limit.ts";

let tasksetFound: boolean | undefined;

export function enforcementPlan(job: CheckedRequest): EnforcementPlan {
  tasksetFound ??= spawnSync("taskset", ["-c", "-p", String(process.pid)], { stdio: "ignore" }).status === 0;
  const notEnforced: string[] = [];
  const pin = job.cpu > 0 && tasksetFound;
  if (job.cpu > 0 && !tasksetFound) notEnforced.push("cpu: taskset was not found, so replicas are not pinned to their cores");
  if (!Number.isInteger(job.cpu))
    notEnforced.push(
      `cpu: the ${Math.round((job.cpu % 1) * 1000) / 1000} of a core is pinned to a core shared with other fractions; its share of that core is not enforced`,
    );
  const memory = job.ramGiven ? memoryLimitKind() : undefined;
  if (memory?.kind === "rlimit")
    notEnforced.push(
      `ram: no writable memory cgroup here, so ${bytes(job.ramBytes)} is held by RLIMIT_DATA (ulimit -d), which bounds the heap, not memory mapped otherwise`,
    );
  if (job.diskGiven) notEnforced.push(`disk: the local cluster does not limit disk use (${bytes(job.diskBytes)} asked)`);
  return { pin, ...(memory && { memory }), notEnforced };
}
