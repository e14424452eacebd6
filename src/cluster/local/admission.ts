// Admission to the local cluster, decided by the jobs' supervisors among
// themselves: strictly by priority (higher first), then launch order; a job
// starts only once every job ahead of it has started and its resources are
// free. Each decision is made under one lock per cluster (../state-lock.ts):
// free = capacity − the grants of jobs whose supervisor or
// replicas still live; the head of the queue writes its grant if it fits.
// Waiting supervisors ask again every interval, and at once when a job that
// held or awaited resources ends (it writes into scheduler/changes, which
// they watch).
import { mkdirSync, readdirSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { allocate, isShortage, type Grant } from "./allocation.ts";
import { jobFiles, type LocalJobRecord, type ProcessRecord } from "./job-record.ts";
import { readJson, readText, writeJson } from "../job-files.ts";
import { isRunning } from "../process-group.ts";
import { withStateLock } from "../state-lock.ts";

/** The scheduler's own files, beside the jobs' directories. */
const schedulerDir = (root: string) => join(root, "scheduler");

/** Runs `fn` holding the cluster's admission lock. */
export function withAdmissionLock<T>(root: string, fn: () => T): Promise<T> {
  const lock = join(schedulerDir(root), "lock");
  return withStateLock(lock, `the local cluster's admission lock ${lock}`, fn);
}

/** The next launch number of the cluster (call under the lock). */
export function nextSeq(root: string): number {
  const path = join(schedulerDir(root), "seq");
  const seq = Number(readText(path).trim() || 0) + 1;
  writeFileSync(path, `${seq}\n`);
  return seq;
}

interface QueuedJob {
  readonly record: LocalJobRecord;
  readonly grant: Grant | undefined;
}

/** Jobs whose supervisor (or launcher) or replicas live: those holding a grant, and those waiting for one. */
function liveJobs(root: string): QueuedJob[] {
  const out: QueuedJob[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const files = jobFiles(join(root, entry.name));
    const record = readJson<LocalJobRecord>(files.job);
    // Until its supervisor runs, the process that launches the job holds its place.
    const holder = record && (readJson<ProcessRecord>(files.supervisor) ?? readJson<ProcessRecord>(files.launcher));
    if (!holder) continue; // not a job, or its launch is not finished
    const supervising = isRunning(holder.pid, holder.startTime);
    const grant = readJson<Grant>(files.grant);
    // A grant outlives a supervisor that crashed while its replicas still run.
    const replicasRun = () => (readJson<{ replicas: ProcessRecord[] }>(files.replicas)?.replicas ?? []).some((r) => isRunning(r.pid, r.startTime));
    if (supervising || (grant && replicasRun())) out.push({ record, grant });
  }
  return out;
}

/** Grants the job its resources if it is at the head of the queue and they are free; else says why it waits. */
export async function tryAdmit(root: string, job: LocalJobRecord): Promise<{ grant: Grant } | { waiting: string }> {
  return withAdmissionLock(root, () => {
    const live = liveJobs(root);
    const held = live.flatMap((j) => (j.grant && j.record.jobId !== job.jobId ? [j.grant] : []));
    const ahead = live.filter(
      (j) => !j.grant && j.record.jobId !== job.jobId && (j.record.priority > job.priority || (j.record.priority === job.priority && j.record.seq < job.seq)),
    );
    const result = allocate(job.need, job.capacity, held);
    if (ahead.length === 0 && !isShortage(result)) {
      writeJson(jobFiles(join(root, job.jobId)).grant, result);
      return { grant: result };
    }
    const queue = ahead.length > 0 ? `${ahead.length} job${ahead.length > 1 ? "s" : ""} ahead` : "";
    if (!isShortage(result)) return { waiting: `waiting for the ${queue} of it to start` };
    return { waiting: `waiting for ${result.asked}: ${result.free} of ${result.total} free${queue && `, ${queue}`}` };
  });
}

/** Tells waiting supervisors that resources or a place in the queue may have come free. */
export function announceChange(root: string): void {
  // Nothing made recursively: a cluster whose state dir was removed has nobody waiting, and must not have it made again.
  const made = (path: string) => {
    try {
      mkdirSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  };
  try {
    made(schedulerDir(root));
    made(join(schedulerDir(root), "changes"));
    writeFileSync(join(schedulerDir(root), "changes", "last"), `${process.pid} ${Date.now()}\n`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/** Resolves after `ms`, or sooner when a change is announced; `close` stops watching. */
export function changeWatcher(root: string): { next(ms: number): Promise<void>; close(): void } {
  const dir = join(schedulerDir(root), "changes");
  mkdirSync(dir, { recursive: true });
  let wake: (() => void) | undefined;
  let missed = false; // a change while it was not waiting: the next wait ends at once
  let watcher: ReturnType<typeof watch> | undefined;
  try {
    watcher = watch(dir, () => (wake ? wake() : (missed = true)));
    watcher.on("error", () => watcher?.close()); // the interval still applies
  } catch {
    // no file watching here: the interval alone
  }
  return {
    next: (ms) =>
      new Promise<void>((resolve) => {
        if (missed) {
          missed = false;
          return resolve();
        }
        const timer = setTimeout(() => wake?.(), ms);
        wake = () => {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        };
      }),
    close: () => watcher?.close(),
  };
}
