// Staging files for RemoteBuffer transfers between processes of one host. The
// reader creates a file in /dev/shm (tmpfs: its pages are memory) and unlinks
// it at once, so nothing is left behind even if a process is killed; the
// owner reaches it through /proc/<reader pid>/fd/<fd> and copies chunks in or
// out with pwrite/pread, the reader the other way. One idle file is kept for
// the next transfer, up to FRAY_BUFFER_SHM_KEEP_BYTES: a fresh tmpfs file pays
// a page allocation per 4 KiB (measured: 256 MiB took 275 ms the first time,
// 40 ms when reused).
import { closeSync, existsSync, fstatSync, openSync, readlinkSync, unlinkSync } from "node:fs";
import { config, settingName } from "../base/config.ts";

const PREFIX = "/dev/shm/fray-buf-";

export interface Staging {
  readonly fd: number;
  /** Where the owner opens it. */
  readonly path: string;
}

let idle: Staging | null = null;
let available: boolean | undefined;
let next = 0;

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
  const file = `${PREFIX}${process.pid}-${next++}`;
  const fd = openSync(file, "w+", 0o600);
  unlinkSync(file);
  return { fd, path: `/proc/${process.pid}/fd/${fd}` };
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
 * Opens, for the owner, a staging file a reader named; refuses any path but
 * another process's open staging file, so a peer cannot aim the owner's
 * writes elsewhere.
 */
export function openStaging(path: string): number {
  const m = /^\/proc\/(\d+)\/fd\/(\d+)$/.exec(path);
  if (!m || Number(m[1]) === process.pid || !readlinkSync(path).startsWith(PREFIX))
    throw new Error(`refusing staging file ${path}: not another process's open ${PREFIX}* file`);
  return openSync(path, "r+");
}
