// Whose report file is whose, and when one may go. A process is named by its host, pid, boot id
// (/proc/sys/kernel/random/boot_id) and pid namespace (the inode of /proc/self/ns/pid): containers on one
// host, and one host's reboots, reuse pids, so the pid alone names two processes. Whether a reporter still
// runs can only be asked of the kernel by a process of the same boot and pid namespace; elsewhere only the
// age of its last report tells. A report last written more than FRAY_REPORT_KEEP_MS ago is removed, unless
// its process is seen to run (a live process whose writes stalled); so is a temp file left by a crash.
import { readFileSync, readlinkSync } from "node:fs";
import { readdir, readFile, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { config } from "../base/config.ts";

/** Which process wrote a report: host and pid, and on Linux the boot and pid namespace the pid belongs to. */
export interface ReporterIdentity {
  readonly host: string;
  readonly pid: number;
  /** Absent in reports of an older fray, and null where /proc does not say. */
  readonly bootId?: string | null;
  readonly pidNamespace?: string | null;
}

let own: Required<ReporterIdentity> | undefined;

/** This process's identity (read once). */
export function ownIdentity(): Required<ReporterIdentity> {
  own ??= {
    host: hostname(),
    pid: process.pid,
    bootId: procText(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()),
    pidNamespace: procText(() => /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? null),
  };
  return own;
}

function procText(read: () => string | null): string | null {
  try {
    return read() || null;
  } catch {
    return null; // no /proc (not Linux)
  }
}

/** The report file's name for `who`: two processes never share one, nor the temp names they write it through. */
export function reportFileName(who: Required<ReporterIdentity>): string {
  return `${who.host}-${who.pid}-${(who.bootId ?? "").slice(0, 8) || "0"}-${who.pidNamespace ?? "0"}.json`;
}

/**
 * Whether the reporter runs: true or false where this process can ask the kernel (same host, boot and pid
 * namespace; on a host without /proc, the same host), null elsewhere.
 */
export function reporterRuns(who: ReporterIdentity): boolean | null {
  const me = ownIdentity();
  if (who.host !== me.host) return null;
  const known = me.bootId !== null || me.pidNamespace !== null;
  if (known && (who.bootId !== me.bootId || who.pidNamespace !== me.pidNamespace)) return null;
  try {
    process.kill(who.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** Whether a report (null: unreadable) last written at `mtimeMs` may be removed: older than FRAY_REPORT_KEEP_MS, its process not seen running. */
export function reportOutlived(report: (ReporterIdentity & { readonly exited: boolean }) | null, mtimeMs: number, now = Date.now()): boolean {
  if (now - mtimeMs <= config.reportKeepMs) return false;
  return report === null || report.exited || reporterRuns(report) !== true;
}

/** Removes the reports, and temp files, in `dir` that outlived their processes (see reportOutlived); never throws. */
export async function pruneReports(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const now = Date.now();
  for (const name of names) {
    if (!name.endsWith(".json") && !name.endsWith(".tmp")) continue;
    const path = join(dir, name);
    try {
      const { mtimeMs } = await stat(path);
      if (now - mtimeMs <= config.reportKeepMs) continue;
      const report = name.endsWith(".json") ? parsed(await readFile(path, "utf8")) : null;
      if (reportOutlived(report, mtimeMs, now)) await unlink(path);
    } catch {
      // Removed meanwhile, or not ours to remove: the next look tries again.
    }
  }
}

function parsed(text: string): (ReporterIdentity & { exited: boolean }) | null {
  try {
    return JSON.parse(text) as ReporterIdentity & { exited: boolean };
  } catch {
    return null;
  }
}
