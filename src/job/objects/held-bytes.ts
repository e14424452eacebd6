// The bytes of the large values this process holds for others to read (held-value.ts), under a cap
// (FRAY_OBJECT_STORE_BYTES, docs/design/object-store.md slice 4): past it the least recently read values go to this
// process's spill directory (FRAY_OBJECT_SPILL_DIR, else the OS temp directory; one per process, removed when it
// exits) and come back when read. Every read of a held value, in this process or by a peer chunk by chunk, asks its
// bytes here (the runtime's RemoteBuffer store calls `bytes()`), so that is where the order of reads is kept.
// Spilling is synchronous: a value's room is made before its task's result is sent, and a disk that fails says so
// to that task's readers; a restore that finds no room serves the bytes from disk and leaves the value spilled.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import type { PagedBytes } from "../../runtime/face/buffers.ts";
import { heldStats } from "../base/metrics.ts";
import { objectTooLarge, restoreFailed, spillFailed, type HeldOrigin } from "../base/errors.ts";
import { config } from "../base/settings.ts";

/** Where spilled bytes go: a directory of this process's own, and its files. */
export interface SpillDisk {
  /** This process's spill directory, made now (throws if it cannot be). */
  makeDir(): string;
  write(path: string, bytes: Uint8Array): void;
  read(path: string): Uint8Array;
  remove(path: string): void;
}

/** The share of the host's memory a process may hold when FRAY_OBJECT_STORE_BYTES is 0 (Ray's object store default). */
const MEMORY_SHARE = 0.3;

/** The cap in force: FRAY_OBJECT_STORE_BYTES, or its default, a share of the host's memory. */
export function storeCap(): number {
  return config.objectStoreBytes || Math.floor(totalmem() * MEMORY_SHARE);
}

function capNow(cap: number): string {
  const share = config.objectStoreBytes === 0 && cap === Math.floor(totalmem() * MEMORY_SHARE);
  return `FRAY_OBJECT_STORE_BYTES=${share ? `0, so ${cap} bytes (30% of this host's memory)` : cap}`;
}

/** One held value's bytes: in memory (`#bytes`), or in `#file` on disk. */
class HeldSlot implements PagedBytes {
  #bytes: Uint8Array | null;
  #file: string | null = null;
  #released = false;
  readonly byteLength: number;

  constructor(
    private readonly store: HeldBytes,
    readonly origin: HeldOrigin,
    bytes: Uint8Array,
  ) {
    this.#bytes = bytes;
    this.byteLength = bytes.byteLength;
  }

  bytes(): Uint8Array {
    if (this.#bytes !== null) {
      this.store.touched(this);
      return this.#bytes;
    }
    return this.store.restore(this, this.#file!);
  }

  released(): void {
    if (this.#released) return;
    this.#released = true;
    this.store.forget(this, this.#file);
    this.#bytes = null;
    this.#file = null;
  }

  /** @internal Its bytes while in memory, read without counting as a read (to spill them). */
  get kept(): Uint8Array | null {
    return this.#bytes;
  }

  /** @internal Its bytes went to `file` (HeldBytes keeps the counts). */
  spilledTo(file: string): void {
    this.#file = file;
    this.#bytes = null;
  }

  /** @internal Its bytes are back in memory; its file is gone. */
  restored(bytes: Uint8Array): void {
    this.#file = null;
    this.#bytes = bytes;
  }
}

export class HeldBytes {
  /** The values in memory, least recently read first (a Set keeps its insertion order: a read moves one to the end). */
  readonly #inMemory = new Set<HeldSlot>();
  #dir: string | null = null;
  #files = 0;

  constructor(
    private readonly disk: SpillDisk = FILE_DISK,
    private readonly cap: () => number = storeCap,
  ) {}

  /** Bytes in memory, and on disk, now. */
  #held = 0;
  #spilled = 0;

  /** Bytes in memory and on disk now. */
  counts(): { held: number; spilled: number } {
    return { held: this.#held, spilled: this.#spilled };
  }

  /** Holds `bytes` for `origin`, spilling the least recently read values if they do not fit; throws if it cannot make room. */
  hold(origin: HeldOrigin, bytes: Uint8Array): PagedBytes {
    const cap = this.cap();
    if (bytes.byteLength > cap) throw objectTooLarge(origin, bytes.byteLength, capNow(cap));
    this.#makeRoom(bytes.byteLength, cap, origin, null);
    const slot = new HeldSlot(this, origin, bytes);
    this.#inMemory.add(slot);
    this.#count(bytes.byteLength, 0);
    return slot;
  }

  /** @internal `slot` was read: it is now the most recently read. */
  touched(slot: HeldSlot): void {
    this.#inMemory.delete(slot);
    this.#inMemory.add(slot);
  }

  /** @internal Reads spilled `slot` back from `file`; keeps it in memory again if others can make room. */
  restore(slot: HeldSlot, file: string): Uint8Array {
    let bytes: Uint8Array;
    try {
      bytes = this.disk.read(file);
    } catch (err) {
      throw restoreFailed(slot.origin, file, err);
    }
    heldStats.restoredTotal += bytes.byteLength;
    try {
      this.#makeRoom(bytes.byteLength, this.cap(), slot.origin, slot);
    } catch {
      return bytes; // no room (the disk is full): served from disk, it stays there
    }
    slot.restored(bytes);
    this.#inMemory.add(slot);
    this.#count(bytes.byteLength, -bytes.byteLength);
    this.#remove(file);
    return bytes;
  }

  /** @internal `slot` was released: its bytes, in memory or on disk, are no longer counted. */
  forget(slot: HeldSlot, file: string | null): void {
    if (this.#inMemory.delete(slot)) this.#count(-slot.byteLength, 0);
    else if (file !== null) {
      this.#count(0, -slot.byteLength);
      this.#remove(file);
    }
  }

  /** Spills the least recently read values (but `keep`) until `need` more bytes fit under `cap`. */
  #makeRoom(need: number, cap: number, origin: HeldOrigin, keep: HeldSlot | null): void {
    for (const victim of this.#inMemory) {
      if (this.#held + need <= cap) return;
      if (victim !== keep) this.#spill(victim, origin, cap);
    }
  }

  #spill(victim: HeldSlot, origin: HeldOrigin, cap: number): void {
    let dir = this.#dir ?? config.objectSpillDir ?? tmpdir();
    let file: string | null = null;
    try {
      dir = this.#dir ??= this.disk.makeDir();
      file = join(dir, `${++this.#files}.bin`);
      this.disk.write(file, victim.kept!);
    } catch (err) {
      if (file !== null) this.#remove(file); // what a failed write left
      throw spillFailed(origin, victim.origin, dir, capNow(cap), err);
    }
    this.#inMemory.delete(victim);
    victim.spilledTo(file);
    this.#count(-victim.byteLength, victim.byteLength);
    heldStats.spilledTotal += victim.byteLength;
  }

  #remove(file: string): void {
    try {
      this.disk.remove(file);
    } catch {
      // gone already: nothing to free
    }
  }

  #count(held: number, spilled: number): void {
    this.#held += held;
    this.#spilled += spilled;
    heldStats.held += held;
    heldStats.spilled += spilled;
  }
}

/** This process's spill directory: `fray-spill-HOST-PID-*` under FRAY_OBJECT_SPILL_DIR or the temp directory. */
const FILE_DISK: SpillDisk = {
  makeDir() {
    const base = config.objectSpillDir ?? tmpdir();
    mkdirSync(base, { recursive: true });
    removeOrphans(base);
    const dir = mkdtempSync(join(base, `fray-spill-${hostname()}-${process.pid}-`));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  },
  write: (path, bytes) => writeFileSync(path, bytes, { flag: "wx" }),
  read: (path) => readFileSync(path),
  remove: (path) => rmSync(path, { force: true }),
};

/** Removes the spill directories of processes of this host that ended without removing theirs (killed); a shared directory's others stay. */
function removeOrphans(base: string): void {
  const mine = `fray-spill-${hostname()}-`;
  for (const name of readdirSync(base)) {
    const pid = name.startsWith(mine) ? /^(\d+)-/.exec(name.slice(mine.length))?.[1] : undefined;
    if (pid === undefined || Number(pid) === process.pid || alive(Number(pid))) continue;
    rmSync(join(base, name), { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
}

/** This process's held bytes. */
export const HELD_BYTES = new HeldBytes();
