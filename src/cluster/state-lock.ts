// A lock shared by the processes that use one cluster state directory: a directory renamed into place whole, with
// its holder's pid (and host) inside, and stale once that process is gone. Admission to the local cluster holds one
// per cluster; launch holds one per job name while it looks for a job of that name and starts one, so two launches
// of a name (a restarted driver racing its predecessor, or Promise.all of two submits) start one job.
// A holder on another host (a Slurm state directory shared over NFS) cannot be checked from here and counts as
// stale, so the lock alone does not keep two hosts apart: Slurm's launch checks again after sbatch.
// (Two processes breaking the same stale lock at once could, in a narrow window, take a fresh one from a third;
// a holder is gone in milliseconds.)
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { pollUntil } from "../runtime/face/polling.ts";
import { readJson, writeJson } from "./job-files.ts";
import { isRunning, startTimeOf } from "./process-group.ts";

interface Holder {
  readonly pid: number;
  readonly startTime: string;
  readonly host?: string;
}

/** Runs `fn` holding the lock at path `lock` (a directory made beside it); `what` names it in a wait's error. */
export async function withStateLock<T>(lock: string, what: string, fn: () => T | Promise<T>): Promise<T> {
  mkdirSync(dirname(lock), { recursive: true });
  await pollUntil(() => tryLock(lock), {
    intervalMs: 5,
    deadlineMs: Infinity, // held while a launch or an admission runs, and broken once its holder is gone
    bound: "no deadline: its holder releases it, and it is broken once its holder's process is gone",
    what,
  });
  try {
    return await fn();
  } finally {
    release(lock);
  }
}

function release(lock: string): void {
  const holder = readJson<Holder>(join(lock, "holder.json"));
  // Broken meanwhile by a process on another host, which may hold it now: its lock is not ours to drop.
  if (holder && (holder.pid !== process.pid || (holder.host ?? hostname()) !== hostname())) return;
  try {
    dropLock(lock);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err; // else broken meanwhile, by a process on another host
  }
}

// Renamed away before it is emptied: an emptied lock would be taken by the next rename into place, and then removed.
function dropLock(lock: string): void {
  const gone = join(dirname(lock), `${basename(lock)}.${process.pid}.gone`);
  renameSync(lock, gone);
  rmSync(gone, { recursive: true, force: true });
}

function tryLock(lock: string): boolean {
  const mine = join(dirname(lock), `${basename(lock)}.${process.pid}.tmp`);
  rmSync(mine, { recursive: true, force: true });
  mkdirSync(mine);
  writeJson(join(mine, "holder.json"), { pid: process.pid, startTime: startTimeOf(process.pid), host: hostname() } satisfies Holder);
  try {
    renameSync(mine, lock); // fails while another holds it: a non-empty directory is not replaced
    return true;
  } catch {
    rmSync(mine, { recursive: true, force: true });
    const holder = readJson<Holder>(join(lock, "holder.json"));
    const here = holder?.host === undefined || holder.host === hostname();
    if (holder && (!here || !isRunning(holder.pid, holder.startTime))) {
      try {
        dropLock(lock); // stale
      } catch {
        // another process broke it first
      }
    }
    return false;
  }
}
