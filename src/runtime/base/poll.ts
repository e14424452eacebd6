// Waiting for something that sends no event (a scheduler's queue, a cloud
// CLI, a process table): ask `check` now and then until it answers, and give
// up at a deadline with an error that says what was awaited and which setting
// or option bounds the wait, so the reader knows what to raise or look at.
import { setTimeout as sleep } from "node:timers/promises";

export interface PollOptions {
  /** Time between checks in ms, or a function of the attempt (0, 1, …) for a backoff. */
  readonly intervalMs: number | ((attempt: number) => number);
  /** How long to keep checking, in ms from now; Infinity only where the caller asked to wait forever. */
  readonly deadlineMs: number;
  /** What is awaited: "2 pods of mesh 'trainers' to run"; a function is asked at the deadline, to say how far it got. */
  readonly what: string | (() => string);
  /** What bounds the wait: "FRAY_SCANCEL_TIMEOUT_MS=120000", "the startTimeoutMs option (5000)". */
  readonly bound: string;
  /** What to look at or do when it times out: "see 'sky logs c1'"; a function is asked at the deadline, as `what` is. */
  readonly hint?: string | (() => string);
}

/** A wait that reached its deadline. */
export class PollTimeoutError extends Error {
  override name = "TimeoutError";
}

type Answer<T> = Exclude<T, undefined | null | false>;

/**
 * Calls `check` (one call at a time) until it returns something other than
 * undefined, null or false, and resolves with that. Rejects with what `check`
 * throws, or with a PollTimeoutError once `deadlineMs` has passed; `check` runs
 * at least once, and once more at the deadline.
 */
export async function pollUntil<T>(check: () => T | Promise<T>, options: PollOptions): Promise<Answer<T>> {
  const { deadlineMs, bound } = options;
  if (!(deadlineMs >= 0)) throw new RangeError(`${bound}: ${deadlineMs} is not a non-negative number of milliseconds`);
  const deadline = Date.now() + deadlineMs;
  for (let attempt = 0; ; attempt++) {
    const answer = await check();
    if (answer !== undefined && answer !== null && answer !== false) return answer as Answer<T>;
    const left = deadline - Date.now();
    if (left <= 0) {
      const what = typeof options.what === "function" ? options.what() : options.what;
      const hint = typeof options.hint === "function" ? options.hint() : options.hint;
      throw new PollTimeoutError(`gave up waiting for ${what} after ${deadlineMs} ms (${bound})${hint ? `; ${hint}` : ""}`);
    }
    const interval = typeof options.intervalMs === "function" ? options.intervalMs(attempt) : options.intervalMs;
    await sleep(Math.min(interval, left));
  }
}
