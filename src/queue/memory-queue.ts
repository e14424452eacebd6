// A lease queue in this process's memory: for tests, and behind a queue server.
import { randomUUID } from "node:crypto";
import { InvalidLeaseError, leaseMs, type Lease, type PopOptions, type Queue } from "./queue.ts";

interface Leased<T> {
  readonly item: T;
  readonly expires: number;
}

export class MemoryQueue<T> implements Queue<T> {
  // Pending items with the front at the end, so pop and release are O(1) array end operations.
  readonly #front: T[] = [];
  // Pushed items in order; #head is the first not yet taken (shifting would be O(n)).
  #back: T[] = [];
  #head = 0;
  readonly #leased = new Map<string, Leased<T>>();
  /** No lease expires before this (it may be earlier than the true minimum, never later). */
  #nextExpiry = Infinity;

  async push(item: T): Promise<void> {
    this.#back.push(item);
  }

  async peek(): Promise<T | null> {
    this.#reclaim();
    if (this.#front.length) return this.#front[this.#front.length - 1];
    return this.#head < this.#back.length ? this.#back[this.#head] : null;
  }

  async pop(options?: PopOptions): Promise<Lease<T> | null> {
    const ms = leaseMs(options);
    this.#reclaim();
    let item: T;
    if (this.#front.length) item = this.#front.pop() as T;
    else if (this.#head < this.#back.length) item = this.#take();
    else return null;
    const timestamp = Date.now();
    const leaseId = randomUUID();
    this.#leased.set(leaseId, { item, expires: timestamp + ms });
    this.#nextExpiry = Math.min(this.#nextExpiry, timestamp + ms);
    return { item, leaseId, timestamp };
  }

  async done(lease: Lease<T>): Promise<void> {
    if (!this.#leased.delete(lease?.leaseId)) throw new InvalidLeaseError(lease?.leaseId);
  }

  async release(lease: Lease<T>): Promise<void> {
    const held = this.#leased.get(lease?.leaseId);
    if (!held) throw new InvalidLeaseError(lease?.leaseId);
    this.#leased.delete(lease.leaseId);
    this.#front.push(held.item);
  }

  async size(): Promise<number> {
    return this.#front.length + this.#back.length - this.#head + this.#leased.size;
  }

  async pending(): Promise<number> {
    this.#reclaim();
    return this.#front.length + this.#back.length - this.#head;
  }

  #take(): T {
    const item = this.#back[this.#head++];
    if (this.#head > 1024 && this.#head * 2 > this.#back.length) {
      this.#back = this.#back.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Expired leases go back to the front, the earliest taken frontmost. */
  #reclaim(): void {
    const now = Date.now();
    if (now < this.#nextExpiry) return;
    const expired: [string, Leased<T>][] = [];
    this.#nextExpiry = Infinity;
    for (const entry of this.#leased) {
      if (entry[1].expires <= now) expired.push(entry);
      else this.#nextExpiry = Math.min(this.#nextExpiry, entry[1].expires);
    }
    for (const [id, l] of expired.reverse()) {
      this.#leased.delete(id);
      this.#front.push(l.item);
    }
  }
}
