// Tasks travel to a worker in batches: all the tasks placed on one worker in
// one tick go in one message (by one of the routes of task-route.ts), encoded
// in one pass, and their results come back to one port of the head's, which
// coalesces the values sent in one tick into one frame. A tiny task then costs
// the driver a few array slots, not a call of its own (reply port, header,
// frame and promise). On the wire a batch is flat arrays, not an object per
// task: a task is the TASK_FIELDS slots of `tasks` starting at its offset,
// each at its TaskField; the sender writes them here and the Executor reads
// them by name (../worker/task-runner.ts).
import type { CodeLocation } from "../../runtime/face/code.ts";

/**
 * Where each field of a task sits among its slots of `TaskBatch.tasks`: its ref id; its number (the rank its
 * result is sent to the results port as); the index of its function in `fns`; its args; its env or null; its SlotUse.
 */
export const TaskField = { id: 0, number: 1, fn: 2, args: 3, env: 4, slot: 5 } as const;

/** Slots per task in `TaskBatch.tasks`. */
export const TASK_FIELDS = 6;

/**
 * How a task uses its worker's slots: `none` (it asked for other resources), `take` one (the head counted its
 * resources when it sent it), `takeAndReport` (it was sent ahead of a free slot: the worker reports when it has one).
 */
export const SlotUse = { none: 0, take: 1, takeAndReport: 2 } as const;
export type SlotUse = (typeof SlotUse)[keyof typeof SlotUse];

export class TaskBatch<T> {
  /** Each function once: url, exportName, url, exportName, … */
  readonly fns: string[];
  readonly tasks: unknown[];
  /** What the sender keeps per task, in the same order. */
  readonly held: T[];
  /** Some task's arguments might not arrive (too big for a frame, say): the batch is sent as a call whose failure fails its tasks. */
  acked: boolean;
  /** The first task's function (index 0); the index of each, made only once a second function joins (most batches run one function). */
  readonly #first: CodeLocation;
  #fnIndex: Map<CodeLocation, number> | null = null;

  /** A batch starts with its first task: its arrays are made at their size, not grown from empty, for a batch of one task. */
  constructor(
    location: CodeLocation,
    id: string,
    number: number,
    args: readonly unknown[],
    env: Readonly<Record<string, string>> | null,
    slot: SlotUse,
    held: T,
  ) {
    this.#first = location;
    this.fns = [location.url, location.exportName];
    this.tasks = [id, number, 0, args, env, slot]; // in TaskField order
    this.held = [held];
    this.acked = !allPlain(args);
  }

  add(
    location: CodeLocation,
    id: string,
    number: number,
    args: readonly unknown[],
    env: Readonly<Record<string, string>> | null,
    slot: SlotUse,
    held: T,
  ): void {
    let fn = location === this.#first ? 0 : this.#fnIndex?.get(location);
    if (fn === undefined) {
      fn = this.fns.length / 2;
      this.fns.push(location.url, location.exportName);
      (this.#fnIndex ??= new Map([[this.#first, 0]])).set(location, fn);
    }
    this.tasks.push(id, number, fn, args, env, slot); // in TaskField order
    this.held.push(held);
    if (!this.acked) this.acked = !allPlain(args);
  }

  get size(): number {
    return this.held.length;
  }

  /** The location of function `f` (its index in `fns`). */
  location(f: number): CodeLocation {
    if (f === 0) return this.#first;
    for (const [location, index] of this.#fnIndex!) if (index === f) return location;
    throw new RangeError(`a batch of ${this.fns.length / 2} functions has no function ${f}`);
  }
}

export function allPlain(args: readonly unknown[]): boolean {
  for (const a of args) if (!isPlain(a)) return false;
  return true;
}

/**
 * A value that surely fits a frame and decodes anywhere, and that a structured
 * clone (a task lane, thread-lane/thread-lane.ts) carries as the codec does: not -0 nor a
 * string with a lone surrogate, which the codec makes 0 and U+FFFD.
 */
export function isPlain(value: unknown): boolean {
  const type = typeof value;
  if (type === "number") return value !== 0 || !Object.is(value, -0);
  if (type === "string") return (value as string).length < 16_384 && (value as WellFormed).isWellFormed();
  return type === "boolean" || value === undefined || value === null;
}

/** String.prototype.isWellFormed (Node 20; ES2024, past this project's lib). */
type WellFormed = { isWellFormed(): boolean };

/**
 * Runs `fn` once the microtasks queued now and those they queue have run: a
 * batch then takes every task placed (or finished) in this turn, however many
 * awaits deep. (A bare nextTick from a message handler runs before them.)
 */
export function afterMicrotasks(fn: () => void): void {
  queueMicrotask(() => process.nextTick(fn));
}
