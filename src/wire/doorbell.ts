// A worker thread's doorbell: a count in shared memory that its parent bumps after each message it posts
// to the thread (by the thread's transport or by a task lane, thread-lane.ts), and how many of those the
// thread has taken. A thread that has just answered and has nothing left to do can wait for the next
// message in Atomics.wait (a futex), as Piscina's workers do, instead of in its event loop: a caller that
// sends one task at a time then reaches it with no eventfd write, epoll wake-up or read on either side:
// ~6 µs of a 26 µs round trip all on one core (fray 20 µs against Piscina's 24, BENCHMARKS.md P1-latency).
// The wait is bounded (FRAY_THREAD_WAIT_MS): what does not ring (a timer, a socket) waits no longer than that.

export class Doorbell {
  /** The memory both sides hold: the parent makes it and hands it to the thread. */
  readonly shared: SharedArrayBuffer;
  readonly #count: Int32Array;
  /** Messages the thread took, through its event loop or after a wait (wrapping as the count does). */
  #taken = 0;
  /** The thread's own transport to its parent has frames queued for the end of this tick: it must not wait first. */
  #unsent = false;
  /** Waits that ended with a message there (for tests, and for judging FRAY_THREAD_WAIT_MS). */
  wakes = 0;

  constructor(shared: SharedArrayBuffer = new SharedArrayBuffer(4)) {
    this.shared = shared;
    this.#count = new Int32Array(shared);
  }

  /** The parent posted a message: counted, and the thread woken if it waits. */
  ring(): void {
    Atomics.add(this.#count, 0, 1);
    Atomics.notify(this.#count, 0, 1);
  }

  /** The thread took a message its parent rang for. */
  took(): void {
    this.#taken = (this.#taken + 1) | 0;
  }

  /** The thread's transport to its parent queued frames (`true`) or posted them (`false`). */
  set unsent(queued: boolean) {
    this.#unsent = queued;
  }

  /**
   * In the thread: waits up to `ms` for a message it has not taken yet. True if one is there (it came, or had come),
   * false if none came or the thread still has frames of its own to send.
   */
  wait(ms: number): boolean {
    if (this.#unsent || ms <= 0) return false;
    if (Atomics.wait(this.#count, 0, this.#taken, ms) === "timed-out") return false;
    this.wakes++;
    return true;
  }
}
