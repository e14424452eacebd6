// What the local backend knows about processes it started in an earlier
// invocation: Linux's /proc tells whether a pid is still the same process
// (start time) and which processes are in a group; elsewhere, kill(pid, 0).
import { readdirSync, readFileSync } from "node:fs";

interface Stat {
  readonly state: string;
  readonly pgrp: number;
  readonly startTime: string;
}

function stat(pid: number | string): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) S ppid pgrp …": comm may hold spaces and parentheses.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0], pgrp: Number(fields[2]), startTime: fields[19] };
  } catch {
    return undefined;
  }
}

const hasProc = (() => {
  try {
    readFileSync("/proc/self/stat");
    return true;
  } catch {
    return false;
  }
})();

/** An opaque start time for `pid` (so a reused pid is not mistaken for it); "" without /proc. */
export function startTimeOf(pid: number): string {
  return stat(pid)?.startTime ?? "";
}

/** Is `pid` still the process that started at `startTime`, and not a zombie? */
export function isRunning(pid: number, startTime: string): boolean {
  if (!hasProc) return signal(pid, 0);
  const s = stat(pid);
  return s !== undefined && s.state !== "Z" && (startTime === "" || s.startTime === startTime);
}

/** Does any live (non-zombie) process remain in process group `pgid`? */
export function groupAlive(pgid: number): boolean {
  if (!hasProc) return signal(-pgid, 0);
  for (const entry of readdirSync("/proc")) {
    if (entry.charCodeAt(0) > 57) continue; // not a pid
    const s = stat(entry);
    if (s && s.pgrp === pgid && s.state !== "Z") return true;
  }
  return false;
}

/** Sends `sig` to `pid` (negative: a whole group); false if there was no such process. */
export function signal(pid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}
