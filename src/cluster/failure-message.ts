// Why a replica failed, in one line for JobInfo.errorMessage: how it exited,
// then what it said — a job function's error ("RangeError: no convergence"),
// else the last lines of its output (the log holds its stdout and stderr).
// Shared by every backend; each says where the replica's log is.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { describeExit, type ExitRecord } from "./replica-script.ts";

/** At most this many of the log's last non-empty lines, each cut to LINE_CHARS, read from its last TAIL_BYTES. */
const TAIL_LINES = 5;
const LINE_CHARS = 200;
const TAIL_BYTES = 16 * 1024;

/** "exited with code 1: fatal: disk full", from a replica's exit record and its log. */
export function failureMessage(code: number, exit: ExitRecord, logPath: string): string {
  const said = exit.error !== undefined ? oneLine(exit.error, TAIL_LINES * LINE_CHARS) : lastLines(logPath).join(" | ");
  const what = describeExit(code, exit.attempts);
  return said ? `${what}: ${said}` : what;
}

/** The log's last non-empty lines (without the replica loop's own "[fray] …" notes); [] without a log. */
export function lastLines(path: string): string[] {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return [];
  }
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    const n = readSync(fd, buffer, 0, buffer.length, start);
    const lines = buffer.subarray(0, n).toString("utf8").split("\n");
    if (start > 0) lines.shift(); // begins mid-line
    return lines
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("[fray] "))
      .slice(-TAIL_LINES)
      .map((l) => oneLine(l, LINE_CHARS));
  } finally {
    closeSync(fd);
  }
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, " | ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
