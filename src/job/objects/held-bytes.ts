// The bytes of the large values this process holds for others to read (held-value.ts), under a cap
// (FRAY_OBJECT_STORE_BYTES, docs/design/object-store.md slice 4). A value from SHM_FROM_BYTES on is kept in /dev/shm,
// not the heap (held-copies.ts), where processes of this host read it from there (SHM below): its one copy in memory,
// which such a process reads whole; it counts under the cap as the heap's do (tmpfs pages are memory). Past the cap
// the least recently read values go to this process's spill directory (spill-disk.ts) and come back when read. Every
// read of a held value, in this process or by a peer (a range, or the whole /dev/shm file), asks for it here (the
// runtime's RemoteBuffer store calls `read` or `file`), so that is where the order of reads is kept. Spilling is
// synchronous: a value's room is made before its task's result is sent, and a disk that fails says so to that task's
// readers; a restore that finds no room serves the bytes from disk and leaves the value spilled.
import { readFileSync } from "node:fs";
import { tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { sharesShm, ShmBytes, type PagedBytes } from "../../runtime/face/buffers.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { heldStats } from "../base/metrics.ts";
import { objectTooLarge, restoreFailed, spillFailed, type HeldOrigin } from "../base/errors.ts";
import { config } from "../base/settings.ts";
import { filledHeap, filledShm, heapCopy, SHM_FROM_BYTES, type Fill, type HeldCopy, type ShmMaker, type Tier } from "./held-copies.ts";
import { joinHeld, type HeldLayout } from "./held-encoding.ts";
import { FILE_DISK, type SpillDisk } from "./spill-disk.ts";

export type { SpillDisk } from "./spill-disk.ts";

/** The share of the host's memory a process may hold when FRAY_OBJECT_STORE_BYTES is 0 (Ray's object store default). */
const MEMORY_SHARE = 0.3;

/** How much of a spilled value one slice restores (a scratch buffer of this size, not the whole value). */
const SLICE = 16 * 2 ** 20;

/** The cap in force: FRAY_OBJECT_STORE_BYTES, or its default, a share of the host's memory. */
export function storeCap(): number {
  return config.objectStoreBytes || Math.floor(totalmem() * MEMORY_SHARE);
}

function capNow(cap: number): string {
  const share = config.objectStoreBytes === 0 && cap === Math.floor(totalmem() * MEMORY_SHARE);
  return `FRAY_OBJECT_STORE_BYTES=${share ? `0, so ${cap} bytes (30% of this host's memory)` : cap}`;
}

/**
 * This process's /dev/shm files, while processes of its host read them (it listens on a Unix socket, and same-host
 * transfers use /dev/shm: FRAY_BUFFER_SAME_HOST=shm and it exists) and fewer than a quarter of its file descriptors
 * hold them: each takes one, and a store of many values must not take the ones its sockets need. Otherwise values stay
 * in the heap: a process on TCP is read over TCP by everyone, and a chunk read from the heap costs one copy less than
 * one read from a file (H2 in BENCHMARKS.md).
 */
const SHM: ShmMaker = () => (sharesShm(currentProc().addr) && ShmBytes.open < shmFileBudget() ? (size) => ShmBytes.create(size) : null);

let budget: number | undefined;
/** A quarter of this process's limit of open files (RLIMIT_NOFILE, as /proc/self/limits gives it); 256 where it cannot tell. */
export function shmFileBudget(): number {
  if (budget !== undefined) return budget;
  try {
    const line = readFileSync("/proc/self/limits", "utf8").match(/^Max open files\s+(\d+)/m);
    budget = line ? Math.floor(Number(line[1]) / 4) : 256;
  } catch {
    budget = 256;
  }
  return budget;
}

/** One held value's bytes: in memory or in /dev/shm (`#copy`), or in `#file` on disk. */
class HeldSlot implements PagedBytes {
  #copy: HeldCopy | null;
  #file: string | null = null;
  #released = false;

  constructor(
    private readonly store: HeldBytes,
    readonly origin: HeldOrigin,
    readonly byteLength: number,
    copy: HeldCopy,
  ) {
    this.#copy = copy;
  }

  read(offset: number, dst: Uint8Array): void {
    const copy = this.#resident();
    if (copy) copy.read(offset, dst);
    else this.store.readSpilled(this, this.#file!, offset, dst);
  }

  view(offset: number, length: number): Uint8Array | null {
    return this.#resident()?.view(offset, length) ?? null;
  }

  file(): string | null {
    return this.#resident()?.file ?? null;
  }

  /** Its copy in memory (a read: now the most recently read), restored from disk if others make room; null if not. */
  #resident(): HeldCopy | null {
    if (this.#copy === null) return this.store.restore(this, this.#file!);
    this.store.touched(this);
    return this.#copy;
  }

  released(): void {
    if (this.#released) return;
    this.#released = true;
    this.store.forget(this, this.#file);
    this.#copy?.free();
    this.#copy = null;
    this.#file = null;
  }

  /** @internal Its copy in memory, if it is there, read without counting as a read (to spill it). */
  get copy(): HeldCopy | null {
    return this.#copy;
  }

  /** @internal Its bytes went to `file` (HeldBytes keeps the counts); its copy in memory is freed. */
  spilledTo(file: string): void {
    this.#copy?.free();
    this.#copy = null;
    this.#file = file;
  }

  /** @internal Its bytes are back in memory; its file is gone. */
  restored(copy: HeldCopy): void {
    this.#file = null;
    this.#copy = copy;
  }
}

export class HeldBytes {
  /** The values in memory or /dev/shm, least recently read first (a Set keeps its insertion order: a read moves one to the end). */
  readonly #resident = new Set<HeldSlot>();
  #dir: string | null = null;
  #files = 0;
  /** Bytes in the heap, in /dev/shm, and on disk, now. */
  #memory = 0;
  #shm = 0;
  #spilled = 0;

  constructor(
    private readonly disk: SpillDisk = FILE_DISK,
    private readonly cap: () => number = storeCap,
    private readonly shm: ShmMaker = SHM,
  ) {}

  /** Bytes held under the cap (in the heap and in /dev/shm), of which in /dev/shm, and on disk, now. */
  counts(): { held: number; shm: number; spilled: number } {
    return { held: this.#memory + this.#shm, shm: this.#shm, spilled: this.#spilled };
  }

  /**
   * Holds `value` (bytes kept as they are, or a layout held-encoding.ts made, written straight into /dev/shm or the
   * heap) for `origin`, spilling the least recently read values if it does not fit; throws if it cannot make room.
   */
  hold(origin: HeldOrigin, value: Uint8Array | HeldLayout): PagedBytes {
    const size = value.byteLength;
    const cap = this.cap();
    if (size > cap) throw objectTooLarge(origin, size, capNow(cap));
    this.#makeRoom(size, cap, origin, null);
    const parts = value instanceof Uint8Array ? [[0, value] as const] : value.parts;
    const copy = this.#place(size, (put) => parts.forEach(([at, part]) => put(at, part))) ?? heapCopy(value instanceof Uint8Array ? value : joinHeld(value));
    const slot = new HeldSlot(this, origin, size, copy);
    this.#resident.add(slot);
    this.#count(copy.tier, size, 0);
    return slot;
  }

  /** A /dev/shm copy of `size` bytes written by `fill`, if the value is large enough for one and /dev/shm takes it; else null. */
  #place(size: number, fill: Fill): HeldCopy | null {
    const make = size >= SHM_FROM_BYTES ? this.shm() : null;
    return make ? filledShm(size, fill, make) : null;
  }

  /** @internal `slot` was read: it is now the most recently read. */
  touched(slot: HeldSlot): void {
    this.#resident.delete(slot);
    this.#resident.add(slot);
  }

  /** @internal Brings spilled `slot` back from `file` into /dev/shm or the heap if others can make room; null if not. */
  restore(slot: HeldSlot, file: string): HeldCopy | null {
    const size = slot.byteLength;
    try {
      this.#makeRoom(size, this.cap(), slot.origin, slot);
    } catch {
      return null; // no room (the disk is full): served from disk, it stays there
    }
    let copy: HeldCopy;
    try {
      const fill: Fill = (put) => {
        const slice = new Uint8Array(Math.min(SLICE, size));
        for (let at = 0; at < size; at += SLICE) {
          const part = slice.subarray(0, Math.min(SLICE, size - at));
          this.disk.read(file, at, part);
          put(at, part);
        }
      };
      copy = this.#place(size, fill) ?? filledHeap(size, fill);
    } catch (err) {
      throw restoreFailed(slot.origin, file, err);
    }
    heldStats.restoredTotal += size;
    slot.restored(copy);
    this.#resident.add(slot);
    this.#count(copy.tier, size, -size);
    this.#remove(file);
    return copy;
  }

  /** @internal Serves a read of spilled `slot` from its `file` (no room to restore it). */
  readSpilled(slot: HeldSlot, file: string, offset: number, dst: Uint8Array): void {
    try {
      this.disk.read(file, offset, dst);
    } catch (err) {
      throw restoreFailed(slot.origin, file, err);
    }
    heldStats.restoredTotal += dst.byteLength;
  }

  /** @internal `slot` was released: its bytes, in memory or on disk, are no longer counted. */
  forget(slot: HeldSlot, file: string | null): void {
    if (this.#resident.delete(slot)) this.#count(slot.copy!.tier, -slot.byteLength, 0);
    else if (file !== null) {
      this.#count("memory", 0, -slot.byteLength);
      this.#remove(file);
    }
  }

  /** Spills the least recently read values (but `keep`) until `need` more bytes fit under `cap`. */
  #makeRoom(need: number, cap: number, origin: HeldOrigin, keep: HeldSlot | null): void {
    for (const victim of this.#resident) {
      if (this.#memory + this.#shm + need <= cap) return;
      if (victim !== keep) this.#spill(victim, origin, cap);
    }
  }

  #spill(victim: HeldSlot, origin: HeldOrigin, cap: number): void {
    let dir = this.#dir ?? config.objectSpillDir ?? tmpdir();
    let file: string | null = null;
    const { tier } = victim.copy!;
    try {
      dir = this.#dir ??= this.disk.makeDir();
      file = join(dir, `${++this.#files}.bin`);
      this.disk.write(file, victim.copy!.slices());
    } catch (err) {
      if (file !== null) this.#remove(file); // what a failed write left
      throw spillFailed(origin, victim.origin, dir, capNow(cap), err);
    }
    this.#resident.delete(victim);
    victim.spilledTo(file);
    this.#count(tier, -victim.byteLength, victim.byteLength);
    heldStats.spilledTotal += victim.byteLength;
  }

  #remove(file: string): void {
    try {
      this.disk.remove(file);
    } catch {
      // gone already: nothing to free
    }
  }

  /** Adds `held` bytes to `tier` and `spilled` to the disk's. */
  #count(tier: Tier, held: number, spilled: number): void {
    if (tier === "shm") this.#shm += held;
    else this.#memory += held;
    this.#spilled += spilled;
    heldStats[tier] += held;
    heldStats.spilled += spilled;
  }
}

/** This process's held bytes. */
export const HELD_BYTES = new HeldBytes();
