// A lease queue in a directory, safe for any number of processes (on one
// machine, or a shared filesystem with atomic rename). Every state change is
// one rename, which exactly one process can win:
//   pending/KEY   pushed items; KEY sorts in push order
//   front/KEY     released and expired items; KEY sorts newest first, and pop takes these first
//   leased/EXPIRES~ID   a lease; its expiry is in its name, so any process can take it back
//   tmp/          items being written, renamed into pending/ once whole
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { decodeStandalone, encodeStandalone } from "../wire/codec.ts";
import { InvalidLeaseError, leaseMs, type Lease, type PopOptions, type Queue } from "./queue.ts";

/** EXPIRES~HEX as #claim makes them; a longer name is no lease (and could exceed the filesystem's name limit). */
const LEASE_ID = /^\d{1,16}~[0-9a-f]{16}$/;
let sequence = 0;

/** The nearest existing part of `path` that is not a directory, if any. */
function fileInTheWay(path: string): string | undefined {
  for (let p = path; ; p = dirname(p)) {
    try {
      return statSync(p).isDirectory() ? undefined : p;
    } catch {
      if (dirname(p) === p) return undefined;
    }
  }
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === "ENOENT";
}

/** Fixed-width, so that names sort as numbers: time, then this process's sequence, then a tie-breaker. */
function key(time: number, seq: number): string {
  return `${String(time).padStart(15, "0")}-${String(seq).padStart(10, "0")}-${randomBytes(4).toString("hex")}`;
}

export class FileQueue<T> implements Queue<T> {
  readonly dir: string;
  readonly #pending: string;
  readonly #front: string;
  readonly #leased: string;
  readonly #tmp: string;
  // A listing of pending/ that pop works through; other processes' claims just fail to rename.
  #listing: string[] = [];
  #next = 0;

  constructor(dir: string) {
    this.dir = dir;
    this.#pending = join(dir, "pending");
    this.#front = join(dir, "front");
    this.#leased = join(dir, "leased");
    this.#tmp = join(dir, "tmp");
    try {
      for (const d of [this.#pending, this.#front, this.#leased, this.#tmp]) mkdirSync(d, { recursive: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOTDIR" && code !== "EEXIST") throw err;
      const file = fileInTheWay((err as NodeJS.ErrnoException).path ?? dir);
      const what = file === dir ? `${dir} is a file` : `${file ?? "part of it"} is a file, not a directory`;
      throw new Error(
        `FileQueue keeps its items in a directory, but ${what}; pass the path of a directory for the queue alone (one that does not exist yet is created)`,
        { cause: err },
      );
    }
  }

  async push(item: T): Promise<void> {
    const bytes = encodeStandalone(item, "a queue item");
    const tmp = join(this.#tmp, randomBytes(8).toString("hex"));
    writeFileSync(tmp, bytes);
    renameSync(tmp, join(this.#pending, key(Date.now(), sequence++)));
  }

  async peek(): Promise<T | null> {
    this.#reclaim();
    for (const dir of [this.#front, this.#pending]) {
      for (const name of this.#list(dir)) {
        try {
          return decodeStandalone(readFileSync(join(dir, name))) as T;
        } catch (err) {
          if (!isMissing(err)) throw err; // leased by someone meanwhile: look further
        }
      }
    }
    return null;
  }

  async pop(options?: PopOptions): Promise<Lease<T> | null> {
    const ms = leaseMs(options);
    this.#reclaim();
    for (const name of this.#list(this.#front)) {
      const lease = this.#claim(this.#front, name, ms);
      if (lease) return lease;
    }
    for (;;) {
      while (this.#next < this.#listing.length) {
        const lease = this.#claim(this.#pending, this.#listing[this.#next++], ms);
        if (lease) return lease;
      }
      this.#listing = this.#list(this.#pending);
      this.#next = 0;
      if (this.#listing.length === 0) return null;
    }
  }

  async done(lease: Lease<T>): Promise<void> {
    try {
      unlinkSync(this.#leasePath(lease));
    } catch (err) {
      if (isMissing(err)) throw new InvalidLeaseError(lease.leaseId);
      throw err;
    }
  }

  async release(lease: Lease<T>): Promise<void> {
    try {
      renameSync(this.#leasePath(lease), join(this.#front, this.#frontKey()));
    } catch (err) {
      if (isMissing(err)) throw new InvalidLeaseError(lease.leaseId);
      throw err;
    }
  }

  async size(): Promise<number> {
    return this.#list(this.#pending).length + this.#list(this.#front).length + this.#list(this.#leased).length;
  }

  async pending(): Promise<number> {
    this.#reclaim();
    return this.#list(this.#pending).length + this.#list(this.#front).length;
  }

  #list(dir: string): string[] {
    return readdirSync(dir).sort();
  }

  /** Newer keys sort first in front/: the last item given back is the next taken. */
  #frontKey(): string {
    return key(1e14 - Date.now(), 1e9 - sequence++);
  }

  #leasePath(lease: Lease<T>): string {
    const id = lease?.leaseId;
    if (typeof id !== "string" || !LEASE_ID.test(id)) throw new InvalidLeaseError(id);
    return join(this.#leased, id);
  }

  /** Leases dir/name, or null if another process took it first. */
  #claim(dir: string, name: string, ms: number): Lease<T> | null {
    const leaseId = `${Date.now() + ms}~${randomBytes(8).toString("hex")}`;
    try {
      renameSync(join(dir, name), join(this.#leased, leaseId));
      return { item: decodeStandalone(readFileSync(join(this.#leased, leaseId))) as T, leaseId, timestamp: Date.now() };
    } catch (err) {
      if (isMissing(err)) return null; // taken by another process (or, with a tiny lease, already expired and retaken)
      throw err;
    }
  }

  /** Expired leases go back to the front, the earliest expiring frontmost. */
  #reclaim(): void {
    const now = Date.now();
    const expired = readdirSync(this.#leased)
      .map((name) => ({ name, expires: Number(name.split("~")[0]) }))
      .filter((l) => l.expires <= now)
      .sort((a, b) => b.expires - a.expires);
    for (const { name } of expired) {
      try {
        renameSync(join(this.#leased, name), join(this.#front, this.#frontKey()));
      } catch (err) {
        if (!isMissing(err)) throw err; // another process took it back first
      }
    }
  }
}
