// Where a held value's bytes are while they are not spilled (held-bytes.ts): a buffer in this process's heap, or, from
// SHM_FROM_BYTES on, an unlinked file in /dev/shm (the runtime's ShmBytes) — their one copy in memory either way.
// A process of this host reads a /dev/shm copy whole, itself; other reads take the range they need.
import { ShmBytes } from "../../runtime/face/buffers.ts";

/**
 * Values from this size on are kept in /dev/shm: a process of this host then reads one in a single copy, where the
 * chunked path takes two and a request per chunk. Below it a file costs more than it saves (a file descriptor, and
 * a system call per access), and such values are read in a chunk or two anyway (FRAY_BUFFER_CHUNK_BYTES, 1 MiB).
 */
export const SHM_FROM_BYTES = 2 ** 20;

/** How much of a /dev/shm copy one slice moves to the spill disk (a scratch buffer of this size, not the whole value). */
const SLICE = 16 * 2 ** 20;

export type Tier = "memory" | "shm";

/** A held value's bytes while not spilled. */
export interface HeldCopy {
  readonly tier: Tier;
  /** The ref a process of this host opens them by (a /dev/shm copy), else null. */
  readonly file: string | null;
  /** Fills `dst` from `offset`. */
  read(offset: number, dst: Uint8Array): void;
  /** Its bytes from `offset` in place, if they are in the heap (a reply sends them with no copy), else null. */
  view(offset: number, length: number): Uint8Array | null;
  /** Its bytes in order, a slice at a time (a slice may be reused for the next). */
  slices(): Iterable<Uint8Array>;
  /** Frees its memory (a /dev/shm file: once readers that have it open close it too). */
  free(): void;
}

/** Writes a new copy's bytes: `put(offset, bytes)` for each part; bytes never put are zeros. */
export type Fill = (put: (offset: number, bytes: Uint8Array) => void) => void;

/** A /dev/shm file as ShmBytes is one; a test may give another. */
export type ShmFile = Pick<ShmBytes, "ref" | "write" | "read" | "close">;

/** Makes /dev/shm files of a size, or null when this process keeps none (FRAY_BUFFER_SAME_HOST=socket, no /dev/shm). */
export type ShmMaker = () => ((size: number) => ShmFile) | null;

/** `bytes` kept as they are, in the heap. */
export function heapCopy(bytes: Uint8Array): HeldCopy {
  let kept: Uint8Array | null = bytes;
  const live = () => kept ?? fail("memory");
  return {
    tier: "memory",
    file: null,
    read: (offset, dst) => dst.set(live().subarray(offset, offset + dst.byteLength)),
    view: (offset, length) => live().subarray(offset, offset + length),
    slices: () => [live()],
    free: () => void (kept = null),
  };
}

/** A new heap copy of `size` bytes, written by `fill`. */
export function filledHeap(size: number, fill: Fill): HeldCopy {
  const bytes = new Uint8Array(size);
  fill((offset, part) => bytes.set(part, offset));
  return heapCopy(bytes);
}

/**
 * A new /dev/shm copy of `size` bytes, written by `fill`; null, with nothing left behind, when /dev/shm cannot take it
 * (not writable, full, out of file descriptors). An error of `fill`'s own (its source) is thrown.
 */
export function filledShm(size: number, fill: Fill, make: (size: number) => ShmFile): HeldCopy | null {
  let file: ShmFile;
  try {
    file = make(size);
  } catch {
    return null;
  }
  let full = false;
  try {
    fill((offset, part) => {
      try {
        file.write(offset, part);
      } catch (err) {
        full = true;
        throw err;
      }
    });
  } catch (err) {
    file.close();
    if (full) return null;
    throw err;
  }
  return shmCopy(file, size);
}

function shmCopy(file: ShmFile, size: number): HeldCopy {
  let open = true;
  const live = () => (open ? file : fail("shm"));
  return {
    tier: "shm",
    file: file.ref,
    read: (offset, dst) => live().read(offset, dst),
    view: () => null,
    *slices() {
      const slice = new Uint8Array(Math.min(SLICE, size));
      for (let at = 0; at < size; at += SLICE) {
        const part = slice.subarray(0, Math.min(SLICE, size - at));
        live().read(at, part);
        yield part;
      }
    },
    free() {
      if (open) file.close();
      open = false;
    },
  };
}

function fail(tier: Tier): never {
  throw new Error(`a held value's bytes in ${tier === "shm" ? "/dev/shm" : "memory"} were read after they were freed`);
}
