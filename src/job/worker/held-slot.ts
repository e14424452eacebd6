// A running task's slot (slots.ts), lent out while the task waits in get()/wait(), and the test for a task's
// value that is a promise (a synchronous task answers with no promise made).
import type { Slots } from "./slots.ts";
import type { StartReports } from "./start-reports.ts";
import type { TaskSlot } from "./remote-context.ts";

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}

/**
 * A running task's slot, lent out while it waits in get()/wait(). A task may wait for several values at once (a get of
 * an array, its arguments held by workers): the slot is lent at the first wait and taken back when the last ends.
 */
export class HeldSlot implements TaskSlot {
  #held = true;
  /** Waits under way: the slot comes back when the last ends, not the first (a task it waits for may need it). */
  #waits = 0;
  /** A task can end while a get() of it still waits (it stopped at its signal, say): that get must not take a slot back. */
  #ended = false;

  constructor(
    private readonly slots: Slots,
    private readonly starts: StartReports,
  ) {}

  block(): void {
    this.starts.flush(); // the head learns that the task started before that it blocked
    this.#waits++;
    if (this.#held) {
      this.slots.release();
      this.#held = false;
    }
  }

  unblock(): void {
    if (this.#waits > 0 && --this.#waits > 0) return;
    if (!this.#held && !this.#ended) {
      this.slots.reclaim();
      this.#held = true;
    }
  }

  /** The task ended: its slot is free (once, even if it ends twice). */
  end(): void {
    this.#ended = true;
    if (this.#held) {
      this.slots.release();
      this.#held = false;
    }
  }
}
