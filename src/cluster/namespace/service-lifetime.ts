// When a cluster's namespace service ends, besides at SIGTERM: once its
// state directory is gone (or its record names another service: it is no
// longer the cluster's), once it has been idle for FRAY_NAMESPACE_IDLE_MS, and
// when `fray cluster stop` calls ServiceControl.shutdown — an actor call, so it
// needs the cluster's token like any other. Idle: no pending or running job,
// no hosted actor, no connected client or open dashboard page, and no launch
// asked for it (service.ts touches `asked` before it reads the record). The
// idle exit hides the record, then looks at `asked` once more: a launch that
// read the record before it was hidden touched `asked` first, so the service
// stays for it; one that came after finds no record and waits on the start
// lock, which the leaving service holds until its process is gone.
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Actor } from "../../mesh/actor.ts";
import { config, settingNow } from "../settings.ts";
import { readJson, readText } from "../job-files.ts";

/** The mesh id of the ServiceControl actor, so `fray cluster stop` needs only the service's address. */
export const SERVICE_CONTROL_ID = "fray-namespace-service";

/** The files of a namespace service that its lifetime depends on (see service.ts). */
export function serviceFiles(dir: string) {
  return {
    record: join(dir, "service.json"),
    /** Touched by every launch (NamespaceService.ensure) before it reads the record. */
    asked: join(dir, "asked"),
    /** Held by whoever starts the service, and by the service while it leaves. */
    startLock: join(dir, "starting"),
  };
}

/** What the service is doing, as its lifetime asks it. */
export interface ServiceActivity {
  /** The actors it hosts, detached or not. */
  hostedActors(): Promise<number>;
  /** Processes connected to it, and open dashboard pages. */
  clients(): number;
  /** The cluster's pending and running jobs. */
  liveJobs(): Promise<number>;
  /** Ends what it serves (its hosted actors, its dashboard): the last thing before the process exits. */
  close(): Promise<void>;
}

/** How often the service looks at its state directory and whether it is idle (at most). */
const TICK_MS = 1_000;

let ending: ((why: string) => Promise<void>) | undefined;

/** `fray cluster stop`'s way in: spawned under SERVICE_CONTROL_ID in the service. */
export class ServiceControl extends Actor {
  /** Ends the service and the actors it hosts; answers before it goes. */
  shutdown(asker: string): string {
    if (!ending) throw new Error("this process is not a namespace service");
    setImmediate(() => void ending?.(`stopped by ${asker}`));
    return `stopping the namespace service (pid ${process.pid})`;
  }
}

/** Watches the service in `dir` (whose record names this process) until one of the ends above; then ends it. */
export function watchLifetime(dir: string, activity: ServiceActivity): void {
  const files = serviceFiles(dir);
  const idleMs = config.namespaceIdleMs; // read now: a bad value fails the start, not the first tick
  const inode = statSync(dir).ino;
  let left = false;
  const end = async (why: string, hideRecord: boolean): Promise<void> => {
    if (left) return;
    left = true;
    if (hideRecord && ownRecord(files.record)) rmSync(files.record, { force: true });
    console.log(`fray namespace service (pid ${process.pid}) exits: ${why}`);
    await activity.close().catch((err: Error) => console.error(`fray namespace service: ending what it serves failed: ${err.message}`));
    process.exit(0);
  };
  ending = (why) => end(why, true);
  process.once("SIGTERM", () => void end("SIGTERM", true)); // its actors end with it, as at a stop

  let lastBusy = Date.now();
  let asked = readText(files.asked);
  let jobsRan = false; // seen at the last look: jobs are looked at each tick until none runs
  const tick = async (): Promise<void> => {
    const gone = statSync(dir, { throwIfNoEntry: false });
    if (!gone || gone.ino !== inode) return end(`its state directory ${dir} is gone`, false);
    const record = readJson<{ pid: number }>(files.record);
    if (record && record.pid !== process.pid) return end(`${files.record} names another service (pid ${record.pid})`, false);
    const now = readText(files.asked);
    if (now !== asked || activity.clients() > 0 || (await activity.hostedActors()) > 0) {
      asked = now;
      lastBusy = Date.now();
      return;
    }
    if (!jobsRan && Date.now() - lastBusy < idleMs) return;
    jobsRan = (await activity.liveJobs()) > 0;
    if (jobsRan) lastBusy = Date.now();
    else if (Date.now() - lastBusy >= idleMs && leaveIdle(files, asked)) await end(`idle for ${settingNow("namespaceIdleMs")}`, false);
  };
  void (async () => {
    for (;;) {
      await sleep(Math.min(TICK_MS, idleMs));
      await tick().catch((err: Error) => console.error(`fray namespace service: looking at its state failed: ${err.message}`));
    }
  })();
}

/**
 * Hides the record under the start lock, unless a launch asked for the service since `asked` was read
 * (then it puts the record back and stays); true: the record is hidden and the lock held until exit.
 */
function leaveIdle(files: ReturnType<typeof serviceFiles>, asked: string): boolean {
  try {
    mkdirSync(files.startLock);
  } catch {
    return false; // someone is starting or stopping it: look again next tick
  }
  const hidden = `${files.record}.leaving`;
  const had = existsSync(files.record);
  if (had) renameSync(files.record, hidden);
  if (readText(files.asked) !== asked) {
    if (had) renameSync(hidden, files.record);
    rmSync(files.startLock, { recursive: true, force: true });
    return false;
  }
  rmSync(hidden, { force: true });
  process.once("exit", () => rmSync(files.startLock, { recursive: true, force: true }));
  return true;
}

function ownRecord(path: string): boolean {
  return readJson<{ pid: number }>(path)?.pid === process.pid;
}
