// Proc addresses: `unix:/path/to.sock`, `tcp://host:port`, and
// `ADVERTISE@BIND` (say `tcp://10.0.0.5:22222@tcp://0.0.0.0:22222`) to tell
// peers one address and listen on another. A proc a worker started is
// `tcp://host:workerPort/name`: it listens on a port the OS picked, which peers
// ask that worker for (so no proc ever takes a port someone else holds).
import { once } from "node:events";
import { createServer, type ListenOptions, type NetConnectOpts } from "node:net";
import { hostname } from "node:os";

export interface Address {
  /** What peers use to reach us, and what identifies the proc. */
  readonly advertise: string;
  readonly listen: ListenOptions;
}

export function parseAddress(addr: string): Address {
  const at = addr.indexOf("@");
  if (at >= 0) return { advertise: endpoint(addr.slice(0, at)) && addr.slice(0, at), listen: toListen(addr.slice(at + 1)) };
  return { advertise: addr, listen: toListen(addr) };
}

const BEHIND_WORKER = /^(tcp:\/\/(?:\[[^\]]+\]|[^:/]+):\d+)\/([\w.-]+)$/;

/** The worker (`tcp://host:port`) that knows where the proc at `addr` listens; null for an address one can dial. */
export function workerOf(addr: string): string | null {
  return BEHIND_WORKER.exec(addr)?.[1] ?? null;
}

/** How to connect to the proc at advertised address `addr` (not one behind a worker: see workerOf). */
export function connectOptions(addr: string): NetConnectOpts {
  if (workerOf(addr)) throw new TypeError(`${addr} is a proc behind a worker: ask the worker for its port`);
  const e = endpoint(addr);
  return "path" in e ? { path: e.path } : { host: e.host, port: e.port };
}

function toListen(addr: string): ListenOptions {
  if (workerOf(addr))
    throw new TypeError(`cannot listen on ${JSON.stringify(addr)}: a tcp://host:port/name address is one to advertise; bind with ADVERTISE@tcp://host:port`);
  const e = endpoint(addr);
  return "path" in e ? { path: e.path } : { host: e.host, port: e.port };
}

function endpoint(addr: string): { path: string } | { host: string; port: number } {
  if (addr.startsWith("unix:")) return { path: addr.slice("unix:".length) };
  const worker = workerOf(addr);
  if (worker) return endpoint(worker);
  const m = /^tcp:\/\/(\[[^\]]+\]|[^:/]+):(\d+)$/.exec(addr);
  if (m) {
    const port = Number(m[2]);
    if (port > 65535) throw new RangeError(`port ${port} in ${JSON.stringify(addr)} is out of range (0-65535)`);
    return { host: m[1].replace(/^\[|\]$/g, ""), port };
  }
  throw new TypeError(
    `malformed address ${JSON.stringify(addr)}: expected unix:/path/to.sock, tcp://host:port, or ADVERTISE@BIND such as ` +
      `tcp://10.0.0.5:22222@tcp://0.0.0.0:22222`,
  );
}

/** Host and port of a `tcp://host:port` address (a worker's, say). */
export function tcpHostPort(addr: string): { host: string; port: number } {
  const e = endpoint(addr);
  if ("path" in e) throw new TypeError(`address ${JSON.stringify(addr)} must be tcp://host:port here`);
  return e;
}

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picked it). */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/** The host a proc address is on: a unix socket's is this machine. */
export function hostOf(addr: string): string {
  if (addr.startsWith("unix:")) return hostname();
  const m = /^tcp:\/\/(\[[^\]]+\]|[^:/]+)/.exec(addr);
  return m ? m[1] : addr;
}
