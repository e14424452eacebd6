// Fault points: a testing hook, not a feature. A race that the chaos run finds by chance (a worker killed while it
// starts, …) becomes a test that fails every time: the test arms a named point of fray's code in the processes of
// the job it starts through FRAY_FAULT_POINTS (workers inherit it), and the point holds, throws, exits or kills its
// process, or drops its connection, exactly there. As Marin's Iris journeys fake execution, transport and time.
//
//   FRAY_FAULT_POINTS="actor-constructing/Executor=pause:/tmp/t/go;actor-constructing/Counter=throw"
//
// A process reads the variable once, when this module loads; unarmed, a point costs one boolean check.
import { appendFileSync, existsSync } from "node:fs";
import { isAbsolute } from "node:path";
import { registerErrorClass } from "../../wire/error-codec.ts";
import { SETTINGS } from "./settings.ts";

const VARIABLE = SETTINGS.faultPoints.env;

/** The points compiled into fray: what their subject is, and the actions each can take (see FaultAction). */
export const FAULT_POINTS = {
  "actor-constructing": {
    subject: "the actor's class name",
    actions: ["pause", "throw", "exit", "kill"],
    doc: "an actor's process is about to run its constructor (runtime/actors/actor-cell.ts)",
  },
  "timer-fired": {
    subject: "the timer's name: cancel-grace (a forced cancel's FRAY_CANCEL_GRACE_MS), heartbeat-lapsed (a worker silent past FRAY_HEARTBEAT_TIMEOUT_MS)",
    actions: ["pause", "exit", "kill"],
    doc: "one of fray's timers has fired, before what it does is done; pause: time stands still for it until released",
  },
  "frame-received": {
    subject: "the message's kind: msg, spawn, stop, fault, port, …",
    actions: ["drop", "exit", "kill"],
    doc:
      "a frame from a peer has arrived on a connection, before it is handled (runtime/net/connections.ts); drop: it is lost with the " +
      "connection, which is reset as a network fault would reset it (a TCP one is then made again and the frame sent again)",
  },
} as const satisfies Record<string, { subject: string; actions: readonly FaultAction["kind"][]; doc: string }>;

export type FaultPointName = keyof typeof FAULT_POINTS;

/**
 * What an armed point does: hold its caller `ms` milliseconds or until `file` exists (appending its pid to
 * `file.held` as it starts holding, so a test knows whom it holds); throw a FaultPointError; exit with `code`;
 * SIGKILL its own process (as a chaos kill); or drop its connection (the first `times` frames that reach it, or every one).
 */
export type FaultAction =
  | { readonly kind: "pause"; readonly ms: number }
  | { readonly kind: "pause"; readonly file: string }
  | { readonly kind: "throw" }
  | { readonly kind: "exit"; readonly code: number }
  | { readonly kind: "kill" }
  | { readonly kind: "drop"; readonly times?: number };

/** The error an armed `throw` point raises: it names the point, so a test tells it from a real failure. */
export class FaultPointError extends Error {
  override name = "FaultPointError";
}
registerErrorClass(FaultPointError);

const USAGE = `give ${VARIABLE}="POINT[/SUBJECT]=ACTION;…" with ACTION one of pause:MS, pause:/absolute/file, throw, exit[:CODE], kill, drop[:TIMES]`;

function parseAction(text: string, point: FaultPointName, entry: string): FaultAction {
  const [kind, arg, ...rest] = text.split(":");
  const bad = (why: string) => new RangeError(`${VARIABLE}: "${entry}": ${why}; ${USAGE}`);
  if (rest.length) throw bad(`"${text}" has more than one ':'`);
  const can: readonly string[] = FAULT_POINTS[point].actions;
  if (kind === "drop" && !can.includes(kind)) throw bad(`${point} has no connection to drop`);
  if (["pause", "throw", "exit", "kill"].includes(kind!) && !can.includes(kind!)) throw bad(`${point} cannot ${kind}; it can ${can.join(", ")}`);
  if (kind === "pause") {
    if (arg === undefined || arg === "") throw bad("pause needs a number of milliseconds or an absolute file path");
    if (isAbsolute(arg)) return { kind, file: arg };
    const ms = Number(arg);
    if (!Number.isFinite(ms) || ms < 0) throw bad(`"${arg}" is neither a non-negative number of milliseconds nor an absolute path`);
    return { kind, ms };
  }
  if (kind === "exit") {
    const code = arg === undefined ? 1 : Number(arg);
    if (!Number.isInteger(code) || code < 0 || code > 255) throw bad(`exit code "${arg}" is not a whole number from 0 to 255`);
    return { kind, code };
  }
  if (kind === "drop" && arg !== undefined) {
    const times = Number(arg);
    if (!Number.isInteger(times) || times < 1) throw bad(`drop's count "${arg}" is not a whole number of times from 1`);
    return { kind, times };
  }
  if (kind === "throw" || kind === "kill" || kind === "drop") {
    if (arg !== undefined) throw bad(`${kind} takes no argument`);
    return { kind };
  }
  throw bad(`unknown action "${kind}"`);
}

/** The points `spec` arms, by "point" (every subject) or "point/subject"; a malformed spec throws naming its fault. */
export function parseFaultPoints(spec: string | undefined): Map<string, FaultAction> {
  const armed = new Map<string, FaultAction>();
  for (const entry of (spec ?? "").split(";").map((e) => e.trim())) {
    if (entry === "") continue;
    const eq = entry.indexOf("=");
    if (eq < 0) throw new RangeError(`${VARIABLE}: "${entry}" has no '=ACTION'; ${USAGE}`);
    const where = entry.slice(0, eq).trim();
    const point = where.split("/")[0]!;
    if (!Object.hasOwn(FAULT_POINTS, point)) {
      throw new RangeError(`${VARIABLE}: "${entry}": unknown fault point "${point}"; the points are: ${Object.keys(FAULT_POINTS).join(", ")}`);
    }
    if (where === `${point}/`) throw new RangeError(`${VARIABLE}: "${entry}": the subject after '/' is empty; ${USAGE}`);
    if (armed.has(where)) throw new RangeError(`${VARIABLE}: "${where}" is armed twice; give one action per point`);
    armed.set(where, parseAction(entry.slice(eq + 1).trim(), point as FaultPointName, entry));
  }
  return armed;
}

const ARMED = parseFaultPoints(process.env[VARIABLE]);
const ANY_ARMED = ARMED.size > 0;

/** Holds until `file` exists, having told `file.held` which process holds. */
function holdUntil(file: string, label: string): Promise<void> {
  appendFileSync(`${file}.held`, `${process.pid} ${label}\n`);
  return new Promise((resolve) => {
    const check = setInterval(() => existsSync(file) && (clearInterval(check), resolve()), 10);
  });
}

/** The action armed for `point` of `subject`, if any; throw, exit and kill are taken here. */
function fire(point: FaultPointName, subject: string): FaultAction | undefined {
  const action = ARMED.get(`${point}/${subject}`) ?? ARMED.get(point);
  if (action?.kind === "throw") throw new FaultPointError(`fault point ${point}/${subject} threw, as ${VARIABLE} asked`);
  if (action?.kind === "exit") process.exit(action.code);
  if (action?.kind === "kill") process.kill(process.pid, "SIGKILL");
  return action;
}

/**
 * Fault point `point` of `subject` (an actor's class, …) is reached. Unarmed: undefined, at the cost of one check.
 * Armed: a promise its caller awaits (pause), a throw, or the process's end.
 */
export function faultPoint(point: FaultPointName, subject: string): Promise<void> | undefined {
  if (!ANY_ARMED) return undefined;
  const action = fire(point, subject);
  if (action?.kind !== "pause") return undefined;
  if ("ms" in action) return new Promise((resolve) => setTimeout(resolve, action.ms));
  return existsSync(action.file) ? undefined : holdUntil(action.file, `${point}/${subject}`);
}

/**
 * `callback` as a timer's callback, with fault point timer-fired of `timer` before it (armed to pause, the callback
 * waits until released: a test holds time still for that timer). Unarmed, `callback` itself.
 */
export function timerFired(timer: string, callback: () => void): () => void {
  if (!ANY_ARMED) return callback;
  return () => {
    const held = faultPoint("timer-fired", timer);
    if (held) void held.then(callback);
    else callback();
  };
}

/** How many frames each armed `drop:TIMES` dropped so far. */
const dropped = new Map<FaultAction, number>();

/** Connection fault point `point` of `subject` is reached: true when its caller must drop the connection (or the process ends). */
export function connectionFault(point: FaultPointName, subject: string): boolean {
  if (!ANY_ARMED) return false;
  const action = fire(point, subject);
  if (action?.kind !== "drop") return false;
  if (action.times === undefined) return true;
  const done = dropped.get(action) ?? 0;
  if (done >= action.times) return false;
  dropped.set(action, done + 1);
  return true;
}
