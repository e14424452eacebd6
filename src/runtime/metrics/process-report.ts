// What a process of a cluster job tells the dashboard, through the job's state
// directory (so it reaches a dashboard on any host that shares the filesystem):
// every FRAY_REPORT_INTERVAL_MS, and once more as it exits (a SIGTERM or SIGINT
// nobody else listens for included), each process with a runtime writes
// FRAY_REPORT_DIR/<host>-<pid>-<boot>-<pid namespace>.json: its place, CPU time and
// memory, its runtime snapshot (meshes with their members' pids, actors,
// failures), what upper layers add (the job layer: its tasks) and, unless
// FRAY_METRICS=0, its own metrics. Worker processes inherit FRAY_REPORT_DIR, so
// each writes its own. Nothing is written without FRAY_REPORT_DIR. Writes are
// asynchronous (a file system such as NFS may be slow; the event loop serves
// calls meanwhile), one at a time, each through a temp file of its own renamed
// over the report, so a reader never sees half of one. A process that starts
// removes the reports of processes long gone (report-files.ts).
import { randomUUID } from "node:crypto";
import { renameSync, writeFileSync } from "node:fs";
import { rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { config } from "../base/config.ts";
import { metricsOn } from "../base/counters.ts";
import type { Proc } from "../proc/proc.ts";
import type { MetricsJson } from "./registry.ts";
import { ownIdentity, pruneReports, reportFileName } from "./report-files.ts";
import { snapshotOf, type RuntimeSnapshot } from "./runtime-snapshot.ts";

export interface ProcessReport {
  readonly pid: number;
  readonly host: string;
  /** The boot (/proc/sys/kernel/random/boot_id) and pid namespace (its inode) the pid belongs to; null where /proc does not say. */
  readonly bootId: string | null;
  readonly pidNamespace: string | null;
  /** The cluster job's replica and process within it (FRAY_REPLICA_ID, FRAY_PROCESS_ID), inherited by its workers. */
  readonly replica: number | null;
  readonly process: number | null;
  /** The proc that started this one (a worker's parent); null for a replica's own process. */
  readonly parentAddr: string | null;
  readonly startedAt: number;
  /** When it was written (ms since the epoch). */
  readonly time: number;
  /** Written as the process exited: its last word. */
  readonly exited: boolean;
  /** CPU time used so far (user + system) and resident memory. */
  readonly cpuSeconds: number;
  readonly rssBytes: number;
  readonly snapshot: RuntimeSnapshot;
  /** What upper layers added (addReportPart), by name. */
  readonly parts: Readonly<Record<string, unknown>>;
  /** Its own metrics (prom-client JSON); null with FRAY_METRICS=0. */
  readonly metrics: MetricsJson | null;
}

const parts = new Map<string, () => unknown>();

/** Adds `read()`'s value to this process's reports as `parts[name]`. */
export function addReportPart(name: string, read: () => unknown): void {
  parts.set(name, read);
}

let started = false;

/**
 * Starts reporting `proc` if this process belongs to a cluster job (FRAY_REPORT_DIR); once per process, from its
 * main thread only (a worker thread's process is its parent's, which reports it: CPU, memory, the meshes it owns).
 */
export function startProcessReport(proc: Proc): void {
  const dir = config.reportDir;
  // node:worker_threads is loaded here, not at every worker's start
  if (started || dir === undefined || dir === "" || !process.getBuiltinModule("node:worker_threads").isMainThread) return;
  started = true;
  const me = ownIdentity();
  const file = join(dir, reportFileName(me));
  const startedAt = Date.now();
  let metrics: MetricsJson | null = null;
  let warned = false;
  let final = false;
  let writing = false;
  const report = (exited: boolean): string => {
    const cpu = process.cpuUsage();
    return JSON.stringify({
      ...me,
      replica: numberOrNull(config.replicaId),
      process: numberOrNull(config.processId),
      parentAddr: config.parentAddr ?? null,
      startedAt,
      time: Date.now(),
      exited,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      rssBytes: process.memoryUsage.rss(),
      snapshot: snapshotOf(proc),
      parts: Object.fromEntries([...parts].map(([name, read]) => [name, read()])),
      metrics,
    } satisfies ProcessReport);
  };
  const failed = (err: unknown) => {
    // ENOENT: the job's directory is gone (the job was removed), so there is nobody to tell; anything else is said once.
    if ((err as NodeJS.ErrnoException).code !== "ENOENT" && !warned) {
      warned = true;
      console.error(`fray: cannot write this process's report for the dashboard to ${file}: ${(err as Error).message}`);
    }
  };
  const tick = async () => {
    if (writing || final) return; // the last write is still under way (a slow file system): this one is skipped
    writing = true;
    const temp = `${file}.${randomUUID()}.tmp`;
    try {
      if (metricsOn) metrics = await (await import("./registry.ts")).metricsJson();
      await writeFile(temp, report(false));
      // The last word, written meanwhile, stays.
      await (final ? unlink(temp) : rename(temp, file));
    } catch (err) {
      await unlink(temp).catch(() => {});
      failed(err);
    } finally {
      writing = false;
    }
  };
  /** The last word, written whole before this returns (the process is exiting). */
  const last = () => {
    if (final) return;
    final = true;
    const temp = `${file}.${randomUUID()}.tmp`;
    try {
      writeFileSync(temp, report(true));
      renameSync(temp, file);
    } catch {
      // Its last word could not be put together as it exits (its runtime half torn down): it reads as gone instead.
    }
  };
  void tick().then(() => pruneReports(dir));
  setInterval(() => void tick(), config.reportIntervalMs).unref();
  process.on("exit", last);
  // A signal nobody else listens for ends the process without "exit": write the last word, then let the signal
  // do what it would have done (listening stops, the default disposition is back, and it is raised again).
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return; // the program handles it: it exits (and "exit" writes) or goes on
      last();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

function numberOrNull(text: string | undefined): number | null {
  return text === undefined || text === "" ? null : Number(text);
}
