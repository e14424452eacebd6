// One setup at a time on this machine: a test run, a single test file and another checkout's run may
// all start one, and two apt-get or npm installs into the same place would trip over each other.
// The lock is a file holding its owner's PID, made whole by link(2) (which fails if it exists); a lock
// whose owner has died is taken over.
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** Polling interval while another process holds the lock (node has no event for a file lock's release). */
const POLL_MS = 200;

/** Runs `fn` holding the lock file `path`; waits while a live process holds it. */
export async function withLock<T>(path: string, fn: () => Promise<T> | T): Promise<T> {
  mkdirSync(dirname(path), { recursive: true });
  let reported: number | undefined;
  for (let holder = tryTake(path); holder !== "taken"; holder = tryTake(path)) {
    if (holder === "stale") continue; // removed; take it on the next try
    if (holder !== reported) console.error(`fray test setup: waiting for process ${holder}, which holds ${path}`);
    reported = holder;
    await sleep(POLL_MS);
  }
  try {
    return await fn();
  } finally {
    rmSync(path, { force: true });
  }
}

/** Takes the lock if it is free; else "stale" (released meanwhile, or removed because its owner died: try again), or the live owner's PID. */
function tryTake(path: string): "taken" | "stale" | number {
  const mine = `${path}.${process.pid}`;
  writeFileSync(mine, String(process.pid));
  try {
    linkSync(mine, path);
    return "taken";
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const pid = owner(path);
    if (pid === undefined) return "stale"; // released meanwhile
    if (alive(pid)) return pid;
    rmSync(path, { force: true });
    return "stale";
  } finally {
    rmSync(mine, { force: true });
  }
}

function owner(path: string): number | undefined {
  try {
    return Number(readFileSync(path, "utf8"));
  } catch {
    return undefined; // released meanwhile
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
