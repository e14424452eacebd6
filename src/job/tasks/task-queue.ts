// The head's queue of tasks waiting for a worker: FIFO, taken mostly from the
// front, so that is O(1) however long the queue (a batch of 100,000 tasks).
export class TaskQueue<T> {
  #items: T[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  at(i: number): T {
    return this.#items[this.#head + i];
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** Puts `item` first (a task to retry). */
  unshift(item: T): void {
    if (this.#head > 0) this.#items[--this.#head] = item;
    else this.#items.unshift(item);
  }

  removeAt(i: number): void {
    if (i === 0) {
      this.#items[this.#head++] = undefined as T;
      if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
        this.#items = this.#items.slice(this.#head);
        this.#head = 0;
      }
    } else this.#items.splice(this.#head + i, 1);
  }

  /** Removes and returns the first item `match` accepts (a scan: for a rare cancel). */
  take(match: (item: T) => boolean): T | undefined {
    for (let i = 0; i < this.length; i++) {
      const item = this.at(i);
      if (!match(item)) continue;
      this.removeAt(i);
      return item;
    }
    return undefined;
  }

  /** Keeps the items for which `keep` is true. */
  retain(keep: (item: T) => boolean): void {
    this.#items = this.#items.slice(this.#head).filter(keep);
    this.#head = 0;
  }
}
