// How a Proc listens: on a Unix socket, or on TCP (with TLS when this process
// has certificates). Nothing a peer sends is decoded before it has proved it
// knows the session token (and, with TLS, shown a certificate from our CA).
// Whatever one connection does ends at most that connection, never the process.
import { linkSync, lstatSync, mkdtempSync, readdirSync, readlinkSync, rmSync, unlinkSync } from "node:fs";
import { createServer, type ListenOptions, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { authenticateClient } from "../../wire/auth.ts";
import { SocketTransport } from "../../wire/socket-transport.ts";
import type { Transport } from "../../wire/transport.ts";
import { config, settingName } from "../base/config.ts";
import { acceptedTokens, tls } from "./credentials.ts";
import { ConnectionError } from "../base/errors.ts";
import { nodeTls } from "../code/lazy-builtins.ts";

export interface ListenHandlers {
  /** A peer proved it knows the token: its connection, ready to carry frames. */
  accepted(transport: Transport): void;
  /** A peer could not prove it knows the token, or (TLS) show a certificate from our CA. */
  refused(): void;
}

/**
 * Listens on `at` (the address `addr` binds); resolves with the bound TCP
 * port (the OS's choice when `at` asked for port 0; undefined on a Unix
 * socket), or rejects naming `addr` when it cannot be bound. A listener that
 * is not `serving` (a client's) holds no event-loop reference.
 */
export function listen(addr: string, at: ListenOptions, serving: boolean, handlers: ListenHandlers): Promise<number | undefined> {
  const limit = { bytes: config.maxFrameBytes, setting: settingName("maxFrameBytes") };
  const onSocket = (socket: Socket) => {
    socket.on("error", () => socket.destroy());
    authenticateClient(socket, acceptedTokens(), config.authTimeoutMs)
      .then(
        () => handlers.accepted(new SocketTransport(socket, limit)),
        () => {
          handlers.refused();
          socket.destroy();
        },
      )
      .catch(() => socket.destroy());
  };
  const material = "port" in at ? tls() : null;
  const server = material
    ? nodeTls()
        .createServer({ ...material, requestCert: true, rejectUnauthorized: true }, onSocket)
        .on("tlsClientError", () => handlers.refused())
    : createServer(onSocket);
  // A Unix socket is bound beside its path and linked into place once it listens: node binds and listens in two
  // system calls, and a dialer that found the file between them would be refused as if its process had exited
  // (refusals.ts), which a loaded machine made happen. Linking fails where the path exists, as binding would.
  const path = "path" in at && at.path ? at.path : null;
  const binding = path ? `${path}.b` : null;
  const fail = (reject: (e: Error) => void, err: NodeJS.ErrnoException) => {
    const inUse = err.code === "EADDRINUSE" || err.code === "EEXIST";
    const message = err.code === "EEXIST" ? `listen EADDRINUSE: address already in use ${path}` : err.message;
    reject(new ConnectionError(`cannot listen on ${addr}: ${message}${inUse ? " (another process holds it; pick another address)" : ""}`, { cause: err }));
  };
  const listening = new Promise<number | undefined>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) => fail(reject, err));
    server.listen(binding ? { ...at, path: binding } : at, () => {
      // From now on an error is one failed accept (say, out of file descriptors), not the listener's end.
      server.on("error", () => {});
      if (path && binding) {
        try {
          linkSync(binding, path);
        } catch (err) {
          server.close();
          fail(reject, err as NodeJS.ErrnoException);
          return;
        } finally {
          unlinkIfThere(binding);
        }
        server.once("close", () => unlinkIfThere(path)); // as node removes a socket it bound itself
      }
      const bound = server.address();
      resolve(bound && typeof bound === "object" ? bound.port : undefined);
    });
  });
  if (!serving) server.unref();
  return listening;
}

/** Removes a socket file, if it is there (unlinkSync: rmSync would load node's rimraf at every worker's start). */
function unlinkIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/**
 * A private (0700) directory for this process's sockets, removed at exit. A
 * process killed by a signal cannot remove its own, so its pid (and pid
 * namespace) is in the name and the next process to make one removes those of
 * dead processes of its user in its own pid namespace.
 */
export function privateSocketDir(): string {
  removeStaleSocketDirs();
  const ns = PID_NAMESPACE === null ? "" : `.${PID_NAMESPACE}`;
  const dir = mkdtempSync(join(tmpdir(), `fray-${process.pid}${ns}-`));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * This process's pid namespace (the inode /proc/self/ns/pid names), or null where there is none to tell. A pid means
 * a process only within its namespace: processes of two containers that share /tmp each see the other's pids as gone.
 */
const PID_NAMESPACE = ((): string | null => {
  try {
    return /^pid:\[(\d+)\]$/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? null;
  } catch {
    return null;
  }
})();

/**
 * The pid of the process that made socket directory `name` (see privateSocketDir), or null when it is not one, or
 * when that process is in another pid namespace (its pid means nothing here: whether it runs cannot be told).
 */
export function socketDirPid(name: string): number | null {
  const m = /^fray-(\d+)(?:\.(\d+))?-\w{6}$/.exec(name);
  if (!m || (m[2] ?? null) !== PID_NAMESPACE) return null;
  return Number(m[1]) || null;
}

function removeStaleSocketDirs(): void {
  const uid = process.getuid?.();
  for (const name of readdirSync(tmpdir())) {
    const pid = socketDirPid(name);
    if (!pid || isRunning(pid)) continue;
    const path = join(tmpdir(), name);
    try {
      if (lstatSync(path).uid === uid) rmSync(path, { recursive: true, force: true });
    } catch {
      // gone already, or not ours to read
    }
  }
}

/** Whether process `pid` exists (ours or another user's). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // alive, another user's
  }
}
