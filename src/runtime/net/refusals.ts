// When a peer that does not accept a connection never will. A dial retries a
// peer that refuses or has no socket yet (dialer.ts): a proc being started is
// dialed by its siblings before it listens, and a TCP worker that restarts
// refuses for a moment. But a Unix socket can say its process is gone: the
// file is there and nothing listens on it (Node binds and listens in one call,
// so a refusal that lasts past a few retries is a process that exited without
// closing it), or its directory is gone (privateSocketDir removes it when its
// process exits; on another host there never was one). Over TCP nothing says
// so: a refusal is retried until FRAY_CONNECT_TIMEOUT_MS runs out.
import { existsSync } from "node:fs";
import { basename, dirname } from "node:path";
import { isRunning, socketDirPid } from "./listener.ts";

/** How many refusals in a row a Unix socket gets before its process is taken to have exited (the first retries take 1, 2 and 4 ms). */
const UNIX_REFUSALS = 3;

/**
 * Why the peer at `addr` will never accept a connection, given the error of
 * dial attempt number `attempt` (from 1); null when it may still (it is not
 * listening yet, or refused for a moment).
 */
export function finalRefusal(addr: string, err: NodeJS.ErrnoException, attempt: number): string | null {
  if (!addr.startsWith("unix:")) return null;
  if (err.code === "ECONNREFUSED") return attempt >= UNIX_REFUSALS ? "its socket file is there but nothing listens on it: its process has exited" : null;
  if (err.code !== "ENOENT") return null;
  const dir = dirname(addr.slice("unix:".length));
  if (!existsSync(dir)) {
    return `the directory of its socket is gone: its process has exited, or it is on another host, which shares no ${dirname(dir)} with this one`;
  }
  const pid = socketDirPid(basename(dir));
  // A live process may still start the proc that will listen there; a dead one never will.
  return pid !== null && !isRunning(pid) ? `the process that made the directory of its socket (pid ${pid}) has exited: nothing will listen there` : null;
}
