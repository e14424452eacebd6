// A worker thread's doorbell: a count in shared memory that its parent bumps after each message it posts
// to the thread (by the thread's transport or by a task lane, thread-lane.ts), and how many of those the
// thread has taken. A thread that has just answered and has nothing left to do can wait for the next
// message in Atomics.wait (a futex), as Piscina's workers do, instead of in its event loop: a caller that
// sends one task at a time then reaches it with no eventfd write, epoll wake-up or read on either side:
// ~6 µs of a 26 µs round trip all on one core (fray 20 µs against Piscina's 24, BENCHMARKS.md P1-latency).
// What does not ring (a timer, a socket) must not wait long behind it: the waits of one turn of the thread's event
// loop block it for FRAY_THREAD_WAIT_MS in all at most, and the thread does not wait at all while it has handles of
// its own (a timer, a socket: an actor's, or one a task left open) beyond those it had when its doorbell was made.
// Its promise callbacks run before each wait: the task lane waits only once they have (thread-lane.ts).
//
// Every worker thread this process starts gets one, through the runtime's thread-spawn hook, registered as
// this module loads: the job head loads it (thread-lane.ts) before it starts any thread. The parent's
// transport to the thread rings it after each post; the thread's transport counts the messages it takes from
// the first, before the job's code loads there, and tells whether it has frames queued (runtime/face/threads.ts).
import { onThreadSpawn, parentLink, type ParentPort } from "../../../runtime/face/threads.ts";

/**
 * The part of a turn's FRAY_THREAD_WAIT_MS its waits may have blocked it and still begin one, which waits the rest: 4 ms
 * or more of the default 5, as a timeout sooner than the kernel's next tick costs a round trip µs (settings.ts).
 */
const BEGIN_WITHIN = 0.2;

/** The workerData entry that carries the doorbell's memory to the thread. */
const ENTRY = "frayDoorbell";

export class Doorbell {
  /** The memory both sides hold: the parent makes it and hands it to the thread. */
  readonly shared: SharedArrayBuffer;
  readonly #count: Int32Array;
  /** Messages the thread took by its task lane (its transport counts those that came by it: `port`). */
  #taken = 0;
  /** In the thread: the kinds of the handles it had as its doorbell was made (its own port, say), one entry each, or the fewest since. */
  #baseline: readonly string[];
  /** The event-loop turn the last wait began in, and how long the waits of that turn blocked it so far (ms). */
  #turn = -1;
  #blocked = 0;
  // What the waits did, for tests and for judging FRAY_THREAD_WAIT_MS:
  /** Waits that ended with a message there. */
  wakes = 0;
  /** Waits not begun because the thread had handles of its own (a timer, a socket). */
  declined = 0;

  /** `port`: in the thread, its transport to its parent (null in the parent). */
  constructor(
    shared: SharedArrayBuffer = new SharedArrayBuffer(4),
    private readonly port: ParentPort | null = null,
  ) {
    this.shared = shared;
    this.#count = new Int32Array(shared);
    this.#baseline = port === null ? [] : process.getActiveResourcesInfo();
  }

  /** The parent posted a message: counted, and the thread woken if it waits (a function of its own: the transport calls it after each post). */
  readonly ring = (): void => {
    Atomics.add(this.#count, 0, 1);
    Atomics.notify(this.#count, 0, 1);
  };

  /** The thread took a message its parent sent by the task lane. */
  took(): void {
    this.#taken = (this.#taken + 1) | 0;
  }

  /**
   * In the thread: waits up to `ms`, less what waits blocked this turn of its event loop already (none begins once they
   * blocked it for a fifth of `ms`), for a message it has not taken yet. True if one is there (it came, or had come);
   * false if none came, or the thread still has frames of its own to send or handles of its own that its parent does not
   * ring for (a timer, a socket).
   */
  wait(ms: number): boolean {
    if (ms <= 0 || this.port === null || this.port.queued) return false;
    if (this.#ownHandles()) {
      this.declined++;
      return false;
    }
    const turn = performance.nodeTiming.uvMetricsInfo.loopCount;
    if (turn !== this.#turn) [this.#turn, this.#blocked] = [turn, 0];
    if (this.#blocked >= ms * BEGIN_WITHIN) return false;
    const start = performance.now();
    const woke = Atomics.wait(this.#count, 0, (this.port.taken + this.#taken) | 0, ms - this.#blocked) !== "timed-out";
    this.#blocked += performance.now() - start;
    if (woke) this.wakes++;
    return woke;
  }

  /**
   * The thread has a handle beyond its baseline: each kind counted against the baseline's. Fewer than the baseline
   * become it (a handle of fray's that was closing as the doorbell was made must not hide a user's of that kind).
   */
  #ownHandles(): boolean {
    const now = process.getActiveResourcesInfo();
    const baseline = this.#baseline;
    if (now.length > baseline.length) return true;
    if (now.length === baseline.length && now.every((kind, i) => kind === baseline[i])) return false; // as a rule
    const left = [...baseline];
    for (const kind of now) {
      const i = left.indexOf(kind);
      if (i < 0) return true;
      left[i] = "";
    }
    if (now.length < baseline.length) this.#baseline = now;
    return false;
  }
}

onThreadSpawn(() => {
  const doorbell = new Doorbell();
  return { workerData: { [ENTRY]: doorbell.shared }, afterPost: doorbell.ring };
});

let own: Doorbell | null = null;

/** In a worker thread whose parent gave it a doorbell: that doorbell, which its parent rings; else null. */
export function threadDoorbell(): Doorbell | null {
  if (own) return own;
  const link = parentLink();
  const shared = link?.workerData[ENTRY];
  return shared instanceof SharedArrayBuffer ? (own = new Doorbell(shared, link!.port)) : null;
}
