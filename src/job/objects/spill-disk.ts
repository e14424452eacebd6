// Where a process's held values go past its object store's cap (held-bytes.ts): a spill directory of its own,
// `fray-spill-HOST-PID-*` under FRAY_OBJECT_SPILL_DIR or the OS temp directory, made on the first spill and removed
// when the process exits (a killed process's is removed by the next of its host to make one there). Files are
// written and read a slice at a time, so a value in /dev/shm never needs a heap copy of its whole to move.
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { readAll, writeAll } from "../../runtime/face/buffers.ts";
import { config } from "../base/settings.ts";

/** Where spilled bytes go: a directory of this process's own, and its files. */
export interface SpillDisk {
  /** This process's spill directory, made now (throws if it cannot be). */
  makeDir(): string;
  /** Writes new file `path` from `slices`, in order (a slice may be reused for the next once it is written). */
  write(path: string, slices: Iterable<Uint8Array>): void;
  /** Fills `dst` from file `path`, from `offset`. */
  read(path: string, offset: number, dst: Uint8Array): void;
  remove(path: string): void;
}

/** This process's spill directory and its files. */
export const FILE_DISK: SpillDisk = {
  makeDir() {
    const base = config.objectSpillDir ?? tmpdir();
    mkdirSync(base, { recursive: true });
    removeOrphans(base);
    const dir = mkdtempSync(join(base, `fray-spill-${hostname()}-${process.pid}-`));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  },
  write(path, slices) {
    const fd = openSync(path, "wx");
    try {
      let at = 0;
      for (const slice of slices) {
        writeAll(fd, slice, at);
        at += slice.byteLength;
      }
    } finally {
      closeSync(fd);
    }
  },
  read(path, offset, dst) {
    const fd = openSync(path, "r");
    try {
      readAll(fd, dst, offset, path);
    } finally {
      closeSync(fd);
    }
  },
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
