// Bytes an owner keeps in /dev/shm instead of its heap: an unlinked tmpfs file (shm-file.ts) whose pages are the
// bytes' only copy in memory (Ray's plasma store keeps its objects so). The job layer keeps each large value it holds
// in one (held-bytes.ts). A process of the same host reads the whole file itself, through /proc/<pid>/fd/<fd>: one
// copy and no chunk requests, where the staging path (shm-staging.ts) has the owner copy each chunk into the reader's
// file and the reader copy it out again. Other reads (the owner's own, chunks for another host) pread a range.
// Closing the file frees its memory; a reader that has it open keeps its pages until it closes it too.
import { closeSync, ftruncateSync } from "node:fs";
import { readAll, writeAll } from "./buffer-store.ts";
import { createShmFile, openShmFile } from "./shm-file.ts";

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

/** How many bytes one synchronous read moves before the event loop runs again (control messages pass between). */
const SLICE = 16 * 2 ** 20;

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
    for (let at = 0; at < dst.byteLength; at += SLICE) {
      if (at > 0) await new Promise(setImmediate);
      readAll(fd, dst.subarray(at, Math.min(at + SLICE, dst.byteLength)), at);
    }
    return true;
  } finally {
    closeSync(fd);
  }
}
