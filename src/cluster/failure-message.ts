// Why a replica failed, in one line for JobInfo.errorMessage: how it exited,
// then what it said — a job function's error ("RangeError: no convergence"),
// else its output's lines that look like an error (a Node program's thrown
// "Error: disk full", which its stack trace pushes out of the tail), then the
// last lines (the log holds its stdout and stderr). Shared by every backend;
// each says where the replica's log is.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { describeExit, type ExitRecord } from "./replica-script.ts";

/** At most this many of the log's last non-empty lines, each cut to LINE_CHARS, read from its last TAIL_BYTES. */
const TAIL_LINES = 5;
/** At most this many lines that look like an error, the latest ones, put before the tail. */
const ERROR_LINES = 2;
/** A line that says what went wrong: "Error: …", "TypeError: …", "Uncaught …Exception: …", "fatal: …", "ERROR …". */
const LOOKS_LIKE_AN_ERROR = /^(Uncaught )?[A-Za-z_.$]*(Error|Exception)( \[\w+\])?: |^(error|fatal|panic|ERROR|FATAL|PANIC)\b[:\s]/;
const LINE_CHARS = 200;
const TAIL_BYTES = 16 * 1024;

/** "exited with code 1: fatal: disk full", from a replica's exit record and its log. */
export function failureMessage(code: number, exit: ExitRecord, logPath: string): string {
  const said = exit.error !== undefined ? oneLine(exit.error, TAIL_LINES * LINE_CHARS) : logCause(logPath).join(" | ");
  const what = describeExit(code, exit.attempts);
  return said ? `${what}: ${said}` : what;
}

/**
 * What the log says went wrong: its latest lines that look like an error, then its last non-empty
 * lines (each once, without the replica loop's own "[fray] …" notes); [] without a log.
 */
export function logCause(path: string): string[] {
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
    const said = lines.map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("[fray] "));
    const errors = [...new Set(said.filter((l) => LOOKS_LIKE_AN_ERROR.test(l)))].slice(-ERROR_LINES);
    const tail = said.slice(-TAIL_LINES).filter((l) => !errors.includes(l));
    return [...errors, ...tail].map((l) => oneLine(l, LINE_CHARS));
  } finally {
    closeSync(fd);
  }
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, " | ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
