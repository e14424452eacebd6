// Bytes an owner keeps in /dev/shm instead of its heap: an unlinked tmpfs file (shm-file.ts) whose pages are the
// bytes' only copy in memory (Ray's plasma store keeps its objects so). The job layer keeps each large value it holds
// in one (held-bytes.ts). A process of the same host reads the whole file itself, through /proc/<pid>/fd/<fd>: one
// copy and no chunk requests, where the staging path (shm-staging.ts) has the owner copy each chunk into the reader's
// file and the reader copy it out again. Other reads (the owner's own, chunks for another host) pread a range.
// Closing the file frees its memory; a reader that has it open keeps its pages until it closes it too.
import { closeSync, ftruncateSync, read as readCallback } from "node:fs";
import { promisify } from "node:util";
import { readAll, writeAll } from "./buffer-store.ts";
import { createShmFile, openShmFile } from "./shm-file.ts";

const read = promisify(readCallback);

export class ShmBytes {
  /** How many of them this process has open: each takes a file descriptor. */
  static #count = 0;
  #fd: number | null;

  static get open(): number {
    return ShmBytes.#count;
  }

  private constructor(
    fd: number,
    /** What a process of this host opens it by (shm-file.ts). */
    readonly ref: string,
    readonly byteLength: number,
  ) {
    this.#fd = fd;
  }

  /**
   * A new file of `size` bytes, zeros until written. Throws as /dev/shm does (absent, not writable, out of file
   * descriptors); a full one throws at the write (ENOSPC), since tmpfs takes its pages only then.
   */
  static create(size: number): ShmBytes {
    const { fd, ref } = createShmFile("fray-held-");
    try {
      ftruncateSync(fd, size);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    ShmBytes.#count++;
    return new ShmBytes(fd, ref, size);
  }

  /** Writes `bytes` at `offset`. */
  write(offset: number, bytes: Uint8Array): void {
    writeAll(this.#open(), bytes, offset);
  }

  /** Fills `dst` with its bytes from `offset`. */
  read(offset: number, dst: Uint8Array): void {
    readAll(this.#open(), dst, offset);
  }

  /** Frees it (once readers that have it open close it too). */
  close(): void {
    if (this.#fd === null) return;
    closeSync(this.#fd);
    this.#fd = null;
    ShmBytes.#count--;
  }

  #open(): number {
    if (this.#fd === null) throw new Error(`shared-memory bytes ${this.ref} were closed`);
    return this.#fd;
  }
}

/** How many bytes one read moves; a file of more is read in such slices, PARALLEL at a time. */
const SLICE = 8 * 2 ** 20;
/**
 * Slices read at once, by libuv's thread pool (4 threads by default), off this thread: the copy and the page faults
 * of a fresh destination are spread over the host's cores, and the event loop stays free meanwhile.
 */
const PARALLEL = 4;

/**
 * Reads the file `ref` names (another process's ShmBytes) into `dst` from its start; false when it is gone (closed:
 * its bytes were spilled or released meanwhile) or is not that file, so the caller reads the usual way.
 */
export async function readShmBytes(ref: string, dst: Uint8Array): Promise<boolean> {
  let fd: number | null;
  try {
    fd = openShmFile(ref, "r", "shared-memory bytes");
  } catch {
    return false; // its fd now names another file: these bytes are gone
  }
  if (fd === null) return false;
  try {
    let next = 0;
    const reader = async (): Promise<void> => {
      for (let at = next; at < dst.byteLength; at = next) {
        next += SLICE;
        await readFully(fd, dst.subarray(at, Math.min(at + SLICE, dst.byteLength)), at);
      }
    };
    // Every read settles before the fd is closed (a closed fd's number may name another file by then).
    const reads = await Promise.allSettled(Array.from({ length: Math.min(PARALLEL, Math.ceil(dst.byteLength / SLICE)) }, reader));
    for (const r of reads) if (r.status === "rejected") throw r.reason;
    return true;
  } finally {
    closeSync(fd);
  }
}

/** Fills `bytes` from the file `fd` at `position`, off this thread. */
async function readFully(fd: number, bytes: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < bytes.byteLength;) {
    const { bytesRead } = await read(fd, bytes, done, bytes.byteLength - done, position + done);
    if (bytesRead === 0) throw new Error(`shared-memory file ended at byte ${position + done}, ${bytes.byteLength - done} bytes short`);
    done += bytesRead;
  }
}
