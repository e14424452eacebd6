// Files in /dev/shm that one process makes and another of the same host opens
// (collective outboxes, RemoteBuffer staging files). The maker creates each
// exclusively under an unguessable name, never following a symlink (a name
// another user made first is not taken over), and unlinks it at once, so
// nothing is left behind even if the process is killed. A peer reaches it
// through /proc/<pid>/fd/<fd> and checks, on the file it opened (fstat, not a
// readlink that a reused fd number could race), that it is the very file the
// maker named: its inode, on /dev/shm, unlinked, owned by the maker's user.
import { closeSync, constants, fstatSync, openSync, statSync, unlinkSync } from "node:fs";

const { O_CREAT, O_EXCL, O_NOFOLLOW, O_RDWR } = constants;

/** A file made by `createShmFile`: its fd here, and what a peer opens it by. */
export interface ShmFile {
  readonly fd: number;
  /** `/proc/<pid>/fd/<fd>#<inode>`. */
  readonly ref: string;
}

/** Makes an unlinked /dev/shm file of this user's only, named `<prefix><random>` while it exists. */
export function createShmFile(prefix: string): ShmFile {
  for (;;) {
    const name = `/dev/shm/${prefix}${process.getBuiltinModule("node:crypto").randomBytes(12).toString("hex")}`; // loaded here, not at start
    let fd: number;
    try {
      fd = openSync(name, O_CREAT | O_EXCL | O_NOFOLLOW | O_RDWR, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") continue; // taken (by chance or not): another name
      throw err;
    }
    unlinkSync(name);
    return { fd, ref: `/proc/${process.pid}/fd/${fd}#${fstatSync(fd).ino}` };
  }
}

/**
 * Opens (`flags` "r" or "r+") the file `ref` names, made by another process of this host. Null when that
 * process's fd is gone (it closed the file, or it died); throws when `ref` names anything else.
 */
export function openShmFile(ref: string, flags: "r" | "r+", what: string): number | null {
  const m = /^\/proc\/(\d+)\/fd\/(\d+)#(\d+)$/.exec(ref);
  if (!m || Number(m[1]) === process.pid) throw new Error(`refusing ${what} ${ref}: not another process's /dev/shm file`);
  let fd: number;
  try {
    fd = openSync(`/proc/${m[1]}/fd/${m[2]}`, flags);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  try {
    const file = fstatSync(fd, { bigint: true });
    const maker = statSync(`/proc/${m[1]}`);
    const shm = BigInt(statSync("/dev/shm").dev);
    const ok = file.isFile() && file.ino === BigInt(m[3]) && file.nlink === 0n && file.dev === shm && file.uid === BigInt(maker.uid);
    if (!ok) throw new Error(`refusing ${what} ${ref}: the file there is not the unlinked /dev/shm file its process made`);
    return fd;
  } catch (err) {
    closeSync(fd);
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null; // the process ended meanwhile
    throw err;
  }
}
