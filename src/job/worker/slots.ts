// Slots: how many counted tasks an Executor runs at once (its worker's cpu).
// The head may send a worker more tasks than it has slots (so the next task is
// already there when one finishes); they wait here, in order. A task blocked
// in get()/wait() lends its slot out meanwhile and takes it back without
// waiting (briefly over the count, as Ray does), so nested tasks cannot
// deadlock behind their parents.
export class Slots {
  #free: number;
  #waiting: Array<() => void> = [];

  constructor(count: number) {
    this.#free = Math.max(1, Math.floor(count));
  }

  /** Takes a free slot if there is one, without waiting: false if none is free (or tasks wait for one already). */
  tryAcquire(): boolean {
    if (this.#free <= 0) return false;
    this.#free--;
    return true;
  }

  acquire(): Promise<void> | undefined {
    if (this.#free > 0) {
      this.#free--;
      return undefined;
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }

  /** Takes a slot back at once, even if none is free. */
  reclaim(): void {
    this.#free--;
  }
}
