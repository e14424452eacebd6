// Where peers on other hosts reach this machine. A client (a driver) listens on
// a Unix socket, which only its own host can dial; references it hands out (its
// ports, buffers, the procs it starts) carry that address. So a client that
// talks to a peer on another host, or to a service this machine offers other
// hosts (a namespace service at a network address), or is told
// FRAY_ADVERTISE_HOST, listens on TCP at an address those hosts reach (proc/proc.ts).
import { readFileSync } from "node:fs";
import { isIPv4 } from "node:net";
import { networkInterfaces } from "node:os";
import { config, settingName } from "../base/config.ts";
import { parseAddress, tcpHostPort } from "./address.ts";

/** Whether `host` (an IP or name from a peer's address) is this machine. */
export function isThisHost(host: string): boolean {
  if (isLoopback(host)) return true;
  return Object.values(networkInterfaces()).some((list) => list?.some((i) => i.address === host));
}

/** The first of `peers` (addresses) on another host, with that host; null when all are on this one. */
export function farPeer(peers: readonly string[]): { peer: string; host: string } | null {
  for (const peer of peers) {
    if (!peer.startsWith("tcp://")) continue;
    const { host } = tcpHostPort(parseAddress(peer).advertise);
    if (!isThisHost(host)) return { peer, host };
  }
  return null;
}

/**
 * The first of `peers` served at a network address of this machine (not
 * loopback): a service there (a namespace service for a cluster's nodes, say)
 * is for other hosts, which may be handed what this process makes.
 */
function servedHere(peers: readonly string[]): string | null {
  for (const peer of peers) {
    if (!peer.startsWith("tcp://")) continue;
    const { host } = tcpHostPort(parseAddress(peer).advertise);
    if (isThisHost(host) && !isLoopback(host)) return host;
  }
  return null;
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host.startsWith("127.") || host === "::1" || host === "0.0.0.0" || host === "::";
}

/**
 * The TCP host a client should listen on to be reached by `peers` (addresses
 * it will talk to) and by the hosts they serve, or null: a Unix socket will do.
 */
export function clientTcpHost(peers: readonly string[]): string | null {
  const far = farPeer(peers);
  return config.advertiseHost ?? (far ? addressFacing(far.host) : servedHere(peers));
}

/** The IPv4 address of this machine on the network `host` is on, else on the default route's interface. */
function addressFacing(host: string): string {
  const mine = Object.entries(networkInterfaces()).flatMap(([name, list]) =>
    (list ?? []).filter((i) => i.family === "IPv4" && !i.internal).map((i) => ({ name, ...i })),
  );
  if (isIPv4(host)) {
    const onSubnet = mine.find((i) => (toInt(i.address) & toInt(i.netmask)) === (toInt(host) & toInt(i.netmask)));
    if (onSubnet) return onSubnet.address;
  }
  const viaDefault = mine.find((i) => i.name === defaultRouteInterface());
  const chosen = viaDefault ?? mine[0];
  if (!chosen)
    throw new Error(`this host has no network address to give ${host} for reaching back; set ${settingName("advertiseHost")} to an address ${host} can reach`);
  return chosen.address;
}

function toInt(ip: string): number {
  return ip.split(".").reduce((n, part) => ((n << 8) | Number(part)) >>> 0, 0);
}

/** The interface of the IPv4 default route, as Linux lists it; undefined elsewhere. */
function defaultRouteInterface(): string | undefined {
  try {
    const rows = readFileSync("/proc/net/route", "utf8").split("\n").slice(1);
    return rows.map((r) => r.trim().split(/\s+/)).find((cols) => cols[1] === "00000000")?.[0];
  } catch {
    return undefined;
  }
}
