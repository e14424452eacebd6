// What the task scheduler keeps of each task: the task as submitted, and,
// once it is placed, where it runs and how far it got.
import type { PortRef } from "../../runtime/face/actors.ts";
import type { CodeLocation } from "../../runtime/face/code.ts";
import { retriesOf, returnsOf, TASK_RESOURCES, type Resources, type TaskOptions } from "../base/options.ts";
import type { Worker } from "./worker-pool.ts";

/** A task function, or where a worker exported it from. */
export type TaskCode = Function | CodeLocation;

/** What a task is called in errors and the dashboard: TaskOptions.name, else its function's name. */
export function taskName(fn: TaskCode, options: { readonly name?: string }): string {
  return options.name ?? (typeof fn === "function" ? String(fn.name || "task") : fn.exportName);
}

/** Where a sent task is: waiting at its worker, running (holding its resources), or blocked in get() (lent them out). */
export type TaskState = "prefetched" | "running" | "blocked";

export interface Task {
  readonly id: string;
  readonly name: string;
  readonly fn: TaskCode;
  readonly args: readonly unknown[];
  readonly resources: Resources;
  readonly env: Readonly<Record<string, string>> | undefined;
  /** A streaming task's port at the head (../streams/head-streams.ts); it runs with a call of its own. */
  readonly stream: PortRef | null;
  /** How many values it returns, each a ref of its own (numReturns, ../objects/task-returns.ts); 0: one value, its own ref's. */
  readonly returns: number;
  retriesLeft: number;
  /**
   * The worker whose loss (of a value it held) made it run again, until it ends: a reader may find the holder gone
   * before the head hears of the worker's death, and the run sent there meanwhile dies of that same death.
   */
  lostWith?: number;
}

/** The task of ref `id`: `fn(...args)` with `options` (`stream`: a streaming task's port). */
export function newTask(id: string, fn: TaskCode, args: readonly unknown[], options: TaskOptions, stream: PortRef | null): Task {
  const resources = options.resources ?? TASK_RESOURCES;
  return { id, name: taskName(fn, options), fn, args, resources, env: options.env, stream, returns: returnsOf(options), retriesLeft: retriesOf(options) };
}

/** A task sent to a worker. */
export interface Running {
  readonly task: Task;
  readonly worker: Worker;
  /** Its result arrives at the results port as this rank (a retried task gets a new one, so a stale result is ignored). */
  readonly number: number;
  state: TaskState;
  /** While its call of its own waits for its code's location or its refs: not at its worker yet. */
  preparing?: boolean;
  /** Sent with a call of its own (own-calls.ts): its worker's pace, how far ahead tasks go (WorkerPool.finished), is measured on batched tasks only. */
  ownCall?: true;
  cancelled?: boolean;
  /** How many of its waits in get()/wait() are under way: it is blocked while any is. */
  waits?: number;
}

/**
 * A wait of `running` in get()/wait() began (`blocked`) or ended: whether its state changed. A task may wait for several
 * values at once (a get of an array, its arguments held by workers): it is blocked, its resources lent out, from its
 * first wait until its last ends, not its first (a task it still waits for may need them).
 */
export function countWait(running: Running, blocked: boolean): boolean {
  const waits = (running.waits ?? 0) + (blocked ? 1 : -1);
  if (waits < 0) return false; // it blocked while sent ahead, which changed nothing
  running.waits = waits;
  const state = waits > 0 ? "blocked" : "running";
  if (state === running.state) return false;
  running.state = state;
  return true;
}
