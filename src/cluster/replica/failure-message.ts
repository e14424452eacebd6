// Why a replica failed, in one line for JobInfo.errorMessage: how it exited,
// then what it said — a job function's error ("RangeError: no convergence"),
// else what its output says went wrong, then its last lines (the log holds its
// stdout and stderr). What went wrong: a thrown error's lines — the ones above
// a stack trace ("Error: disk full on /data", its message's further lines,
// "[cause]: Error: quota reached"), which the trace pushes out of the tail —
// and lines that look like an error ("Traceback …", "panic: …", "error: …").
// Shared by every backend; each says where the replica's log is.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { ReplicaError } from "../types.ts";
import { describeExit, type ExitRecord } from "./script.ts";

/** At most this many of the log's last non-empty lines, each cut to LINE_CHARS, read from its last TAIL_BYTES. */
const TAIL_LINES = 5;
/** At most this many errors (the latest, each said once, with its causes), put before the tail. */
const ERRORS = 2;
/** At most this many lines of one thrown error: its first line and its message's next ones. */
const ERROR_LINES = 3;
/** A line that says what went wrong: "Error: …", "[cause]: TypeError: …", "Traceback (most recent call last):", "fatal: …", "panic: …", "error[E0425]: …". */
const LOOKS_LIKE_AN_ERROR = new RegExp(
  [
    /^(\[cause\]: |Uncaught )?\[?[A-Za-z_.$]*(Error|Exception|Rejection)( \[\w+\])?: /,
    /^(error|fatal|panic|ERROR|FATAL|PANIC)(\[\w+\])?[:\s]/,
    /^Traceback \(most recent call last\):/,
    /^thread '.*' panicked at /,
  ]
    .map((r) => r.source)
    .join("|"),
);
/** The first line of what JavaScript prints of an error of any class: "DiskFull: /data is full". */
const ERROR_HEADER = /^[A-Za-z_$][\w$.]*: /;
/** A line of a stack trace: "at f (file:1:2)", and the "... 4 lines matching cause stack trace ..." / "... 5 more" that stand for some. */
const STACK_FRAME = /^(at |\.\.\. \d+ )/;
const LINE_CHARS = 200;
const TAIL_BYTES = 16 * 1024;

/** "exited with code 1: fatal: disk full", from a replica's exit record and its log. */
export function failureMessage(code: number, exit: ExitRecord, logPath: string): string {
  const said = exit.error !== undefined ? oneLine(exit.error, TAIL_LINES * LINE_CHARS) : logCause(logPath).join(" | ");
  const what = describeExit(code, exit.attempts);
  return said ? `${what}: ${said}` : what;
}

/**
 * What the log says went wrong: its latest errors (see above), then its last non-empty lines not
 * already among them (without the replica loop's own "[fray] …" notes); [] without a log.
 */
export function logCause(path: string): string[] {
  const lines = logLines(path);
  // The latest ERRORS errors, each with the "[cause]: …" lines printed after it (a cause alone does not say what failed).
  const found = errorsIn(lines, 10);
  let at = found.length;
  for (let errors = 0; at > 0 && errors < ERRORS;) if (!found[--at][0].startsWith("[cause]: ")) errors++;
  const errors = found.slice(at);
  const shown = new Set(errors.flat());
  const tail = lines.filter((l) => l !== "").slice(-TAIL_LINES);
  return [...errors.flat(), ...tail.filter((l) => !shown.has(l))].map((l) => oneLine(l, LINE_CHARS));
}

/** The latest `max` errors of `lines` (trimmed, blank ones kept: they end a thrown error's message), each as its lines. */
function errorsIn(lines: readonly string[], max = ERRORS): string[][] {
  const found = new Map<number, string[]>(); // by the index of its first line
  lines.forEach((line, i) => {
    if (LOOKS_LIKE_AN_ERROR.test(line)) found.set(i, [line]);
    // The first frame of a stack trace: the lines above it, up to a blank line or another trace, are what was
    // thrown — from its first line that looks like an error, else like an error's header (what the program
    // printed before it is not).
    if (!STACK_FRAME.test(line) || i === 0 || STACK_FRAME.test(lines[i - 1])) return;
    let start = i;
    while (start > 0 && lines[start - 1] !== "" && !STACK_FRAME.test(lines[start - 1])) start--;
    const above = lines.slice(start, i);
    const first = [LOOKS_LIKE_AN_ERROR, ERROR_HEADER].map((pattern) => above.findIndex((l) => pattern.test(l))).find((at) => at >= 0);
    if (first !== undefined) start += first;
    for (let j = start; j < i; j++) found.delete(j); // its own lines are not errors of their own
    if (start < i) found.set(start, lines.slice(start, Math.min(i, start + ERROR_LINES)));
  });
  // Each error once, where it was last said (a retried replica says the same each attempt).
  const latest = new Map<string, string[]>();
  for (const [, error] of [...found].sort(([a], [b]) => a - b)) {
    const key = error.join("\n");
    latest.delete(key);
    latest.set(key, error);
  }
  return [...latest.values()].slice(-max);
}

/** An error a log shows, split for people: "Error: disk full on /data" → class "Error", message "disk full on /data". */
export type LogError = ReplicaError;

/** The last error the log at `path` shows (see logCause), with the causes printed after it; null when it shows none. */
export function logError(path: string): LogError | null {
  const errors = errorsIn(logLines(path), 10).map((lines) => lines[0]);
  let at = errors.length - 1;
  while (at > 0 && errors[at].startsWith("[cause]: ")) at--;
  if (at < 0) return null;
  return splitError(errors.slice(at));
}

/** A failed replica's error: what its job function threw (with the causes it reported), else what its log shows last. */
export function failureError(exit: ExitRecord, logPath: string): ReplicaError | undefined {
  return exit.error !== undefined ? splitError(exit.error.split("\n")) : (logError(logPath) ?? undefined);
}

/** "RangeError: x", "[cause]: TypeError: y", … → class "RangeError", message "x", causes ["RangeError: x", "TypeError: y"]. */
function splitError(lines: readonly string[]): ReplicaError {
  const [first, ...causes] = lines.map((l) => oneLine(l.replace(/^(\[cause\]: |Uncaught )/, ""), LINE_CHARS));
  const split = /^([A-Za-z_$][\w$.]*(?: \[\w+\])?): (.*)$/.exec(first);
  return { errorClass: split ? split[1] : "", message: split ? split[2] : first, causes: [first, ...causes] };
}

/**
 * The log's last lines, trimmed, without the replica loop's own "[fray] …" notes and without Node's excerpt of the
 * line that threw ("file.js:2", the line's source, a caret under it), which says where, not what, and would put a
 * program's source into errorMessage.
 */
function logLines(path: string): string[] {
  const lines: string[] = [];
  for (const line of lastLines(path)) {
    const trimmed = line.trim();
    if (trimmed.startsWith("[fray] ")) continue;
    if (/^\^+$/.test(trimmed) && lines.length >= 2 && /:\d+$/.test(lines[lines.length - 2])) lines.splice(-2);
    else lines.push(trimmed);
  }
  return lines;
}

/** The lines of the last TAIL_BYTES of the file at `path`; [] without it. */
function lastLines(path: string): string[] {
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
    return lines;
  } finally {
    closeSync(fd);
  }
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, " | ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
