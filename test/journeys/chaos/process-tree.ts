// A process and those under it, read from /proc (Linux): what a journey started, so that the chaos run can hurt
// its workers and, once it ends, find any it left behind.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** `root` and every process under it, by /proc's parent links (root first). */
export function processFamily(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = parentOf(Number(entry));
    if (ppid !== null) children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const all = [root];
  for (let i = 0; i < all.length; i++) all.push(...(children.get(all[i]) ?? []));
  return all;
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null; // it ended meanwhile
  }
}

/** The command line of `pid`, or "" if it ended. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/** The targets of `pid`'s open file descriptors (files, `socket:[inode]`, …); none if it ended. */
export function openFiles(pid: number): string[] {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  const targets: string[] = [];
  for (const fd of fds) {
    try {
      targets.push(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      // closed meanwhile
    }
  }
  return targets;
}

/** An established TCP connection over IPv4 loopback, as /proc/net/tcp lists it. */
export interface TcpConnection {
  readonly local: string;
  readonly remote: string;
  readonly inode: string;
}

/** The established IPv4 TCP connections that `pids` hold open. */
export function tcpConnections(pids: readonly number[]): TcpConnection[] {
  const inodes = new Set<string>();
  for (const pid of pids) for (const target of openFiles(pid)) if (target.startsWith("socket:[")) inodes.add(target.slice(8, -1));
  let table: string;
  try {
    table = readFileSync(`/proc/${pids[0]}/net/tcp`, "utf8");
  } catch {
    return [];
  }
  const found: TcpConnection[] = [];
  for (const line of table.split("\n").slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 10 || cols[3] !== "01" || !inodes.has(cols[9])) continue; // 01: ESTABLISHED
    found.push({ local: address(cols[1]), remote: address(cols[2]), inode: cols[9] });
  }
  return found;
}

/** `0100007F:1F90` → `127.0.0.1:8080`. */
function address(hex: string): string {
  const [ip, port] = hex.split(":");
  const bytes = [0, 2, 4, 6].map((i) => parseInt(ip.slice(i, i + 2), 16)).reverse();
  return `${bytes.join(".")}:${parseInt(port, 16)}`;
}
