// The order a process runs the calls of each sender in. Calls sent straight
// come over the sender's one link, in order. A cast comes through relays, so a
// sender that has cast to this process numbers every later call to it (`q`):
// this runs numbered calls in number order whichever way they came, drops
// copies (a sender sends again what a relay that died may or may not have
// passed on), and tells the sender how far it got, so the sender can forget
// what it kept for sending again (call-sender.ts).
//
// Unnumbered calls are counted as they run: they are the first calls of their
// sender here, so the count is the number the next call would have.

/** Acknowledge after this many numbered calls ran… */
const ACK_EVERY = 256;
/** …or this long after the first one not acknowledged. */
const ACK_AFTER_MS = 200;

interface FromSender {
  /** How many of its calls ran here. */
  ran: number;
  /** Numbered calls that came before their turn, by number. */
  early: Map<number, () => void> | null;
  /** Numbered calls that ran since the last acknowledgement. */
  unacked: number;
  timer: NodeJS.Timeout | null;
  /** What waits for a number of its calls to have run (whenRan). */
  waiting: Array<[count: number, then: () => void]> | null;
}

export class CallOrder {
  #from = new Map<string, FromSender>();

  /** `ack(origin, q)`: tell `origin` its calls up to `q` ran here. */
  constructor(private readonly ack: (origin: string, q: number) => void) {}

  /** An unnumbered call from `peer` ran (it came over their link, in the link's order). */
  ranUnnumbered(peer: string): void {
    const from = this.#from.get(peer);
    if (!from) {
      this.#from.set(peer, { ran: 1, early: null, unacked: 0, timer: null, waiting: null });
      return;
    }
    from.ran++;
    if (from.early) this.#runEarly(peer, from);
    else if (from.waiting) this.#wake(from);
  }

  /** Numbered call `q` from `origin`: `run` now if it is next, once its turn comes if it is early, never if it is a copy. */
  numbered(origin: string, q: number, run: () => void): void {
    let from = this.#from.get(origin);
    if (!from) this.#from.set(origin, (from = { ran: 0, early: null, unacked: 0, timer: null, waiting: null }));
    if (q <= from.ran) return; // a copy of one that ran
    if (q > from.ran + 1) {
      const early = (from.early ??= new Map());
      if (!early.has(q)) early.set(q, run);
      return;
    }
    run();
    from.ran = q;
    this.#counted(origin, from, 1);
    if (from.early) this.#runEarly(origin, from);
  }

  /** Runs `then` once the first `count` calls from `origin` ran here. */
  whenRan(origin: string, count: number, then: () => void): void {
    const from = this.#from.get(origin);
    if ((from?.ran ?? 0) >= count) then();
    else if (from) (from.waiting ??= []).push([count, then]);
    else this.#from.set(origin, { ran: 0, early: null, unacked: 0, timer: null, waiting: [[count, then]] });
  }

  /** `origin` is gone: nothing it sent is coming any more, and it wants no acknowledgement. */
  forget(origin: string): void {
    const from = this.#from.get(origin);
    if (from?.timer) clearTimeout(from.timer);
    this.#from.delete(origin);
  }

  #runEarly(origin: string, from: FromSender): void {
    const early = from.early!;
    let ran = 0;
    for (let next = early.get(from.ran + 1); next; next = early.get(from.ran + 1)) {
      early.delete(from.ran + 1);
      next();
      from.ran++;
      ran++;
    }
    if (early.size === 0) from.early = null;
    if (ran) this.#counted(origin, from, ran);
  }

  #wake(from: FromSender): void {
    const due = from.waiting!.filter(([count]) => from.ran >= count);
    if (!due.length) return;
    from.waiting = from.waiting!.filter(([count]) => from.ran < count);
    if (!from.waiting.length) from.waiting = null;
    for (const [, then] of due) then();
  }

  #counted(origin: string, from: FromSender, ran: number): void {
    from.unacked += ran;
    if (from.waiting) this.#wake(from);
    if (from.unacked >= ACK_EVERY) this.#acknowledge(origin, from);
    else if (!from.timer) {
      from.timer = setTimeout(() => this.#acknowledge(origin, from), ACK_AFTER_MS);
      from.timer.unref();
    }
  }

  #acknowledge(origin: string, from: FromSender): void {
    if (from.timer) clearTimeout(from.timer);
    from.timer = null;
    from.unacked = 0;
    if (this.#from.get(origin) === from) this.ack(origin, from.ran);
  }
}
