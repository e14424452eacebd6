// The lease queue contract every implementation keeps (memory, file, HTTP).
import { registerErrorClass } from "../wire/error-codec.ts";

/** Exclusive, temporary ownership of one item: finish it with done(), or give it back with release(). */
export interface Lease<T> {
  readonly item: T;
  readonly leaseId: string;
  /** When the lease was taken, in ms since the epoch (Date.now()). */
  readonly timestamp: number;
}

export interface PopOptions {
  /** Seconds until the item goes back to the front of the queue unless done() or release() came first (default 60). */
  readonly leaseTimeout?: number;
}

export interface Queue<T> {
  /** Adds an item at the back. */
  push(item: T): Promise<void>;
  /** The item pop() would lease next, without leasing it; null when none is pending. */
  peek(): Promise<T | null>;
  /** Leases the front item; null at once when none is pending (it never waits). */
  pop(options?: PopOptions): Promise<Lease<T> | null>;
  /** Removes the leased item for good. A lease that is done, released or expired and retaken → Error("Invalid lease"). */
  done(lease: Lease<T>): Promise<void>;
  /** Puts the leased item back at the front. */
  release(lease: Lease<T>): Promise<void>;
  /** Pending plus leased items. */
  size(): Promise<number>;
  /** Items pop() could lease now (expired leases included). */
  pending(): Promise<number>;
}

export const DEFAULT_LEASE_TIMEOUT_S = 60;

/** The lease's lifetime in ms, checked. */
export function leaseMs(options: PopOptions | undefined): number {
  const seconds = options?.leaseTimeout ?? DEFAULT_LEASE_TIMEOUT_S;
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds <= 0) {
    throw new TypeError(`leaseTimeout is in seconds and must be a number > 0, got ${String(seconds)}`);
  }
  return seconds * 1000;
}

export class InvalidLeaseError extends Error {
  override name = "InvalidLeaseError";
  constructor(leaseId: unknown) {
    super("Invalid lease", { cause: `lease ${JSON.stringify(leaseId)} is done, released, or expired and taken again` });
  }
}
registerErrorClass(InvalidLeaseError);
