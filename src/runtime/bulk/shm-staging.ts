// Staging files for RemoteBuffer transfers between processes of one host. The
// reader creates a file in /dev/shm (tmpfs: its pages are memory) and unlinks
// it at once (shm-file.ts), so nothing is left behind even if a process is
// killed; the owner reaches it through /proc/<reader pid>/fd/<fd>, checked to
// be that file, and copies chunks in or out with pwrite/pread, the reader the
// other way. One idle file is kept for
// the next transfer, up to FRAY_BUFFER_SHM_KEEP_BYTES: a fresh tmpfs file pays
// a page allocation per 4 KiB (measured: 256 MiB took 275 ms the first time,
// 40 ms when reused).
import { closeSync, existsSync, fstatSync } from "node:fs";
import { config, settingName } from "../base/config.ts";
import { createShmFile, openShmFile } from "./shm-file.ts";

export interface Staging {
  readonly fd: number;
  /** Where the owner opens it. */
  readonly path: string;
}

let idle: Staging | null = null;
let available: boolean | undefined;

/** Whether transfers to a process of this host go through staging files (FRAY_BUFFER_SAME_HOST, and /dev/shm exists). */
export function useStaging(): boolean {
  const how = config.bufferSameHost;
  if (how !== "shm" && how !== "socket")
    throw new RangeError(`${settingName("bufferSameHost")}=${JSON.stringify(how)} is neither "shm" nor "socket"; unset it or give one of those`);
  available ??= existsSync("/dev/shm") && existsSync(`/proc/${process.pid}/fd`);
  return how === "shm" && available;
}

/** A staging file for one transfer: the idle one, or a new one. */
export function takeStaging(): Staging {
  if (idle) {
    const s = idle;
    idle = null;
    return s;
  }
  const { fd, ref } = createShmFile("fray-buf-");
  return { fd, path: ref };
}

/**
 * Keeps `s` for the next transfer, or closes it (which frees its memory). A
 * failed transfer's file is never reused: its owner may still be writing to it.
 */
export function returnStaging(s: Staging, reuse: boolean): void {
  if (reuse && idle === null && fstatSync(s.fd).size <= config.bufferShmKeepBytes) idle = s;
  else closeSync(s.fd);
}

/**
 * Opens, for the owner, a staging file a reader named; refuses any file but that
 * reader's own, so a peer cannot aim the owner's writes elsewhere.
 */
export function openStaging(path: string): number {
  const fd = openShmFile(path, "r+", "staging file");
  if (fd === null) throw new Error(`staging file ${path} is gone: its process closed it or ended`);
  return fd;
}
