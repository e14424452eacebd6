// The faults the chaos run injects into a running journey, from outside it as an operator's bad day would: a
// worker SIGKILLed, a worker stopped (SIGSTOP) past the heartbeat's patience, one TCP connection of the
// journey's workers dropped (`ss -K`), /dev/shm filled for a moment, the cluster's namespace service killed
// and started again. Each says what it did, or null when the journey had nothing it applies to (no worker
// process yet, no connection, no namespace service).
import { execFileSync } from "node:child_process";
import { openSync, closeSync, existsSync, ftruncateSync, readFileSync, statfsSync, unlinkSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { NamespaceService } from "../../../src/cluster/namespace/service.ts";
import { commandLine, processFamily, tcpConnections } from "./process-tree.ts";
import { isAlive } from "../../process-alive.ts";
import type { SeededRandom } from "./seeded-random.ts";

/** The journey being hurt: its program's pid. */
export interface FaultTarget {
  readonly root: number;
  /** How long a stopped worker stays stopped: past the heartbeat's timeout, so its parent gives up on it. */
  readonly stopMs: number;
  /** The directory /dev/shm is (a small tmpfs of the chaos run's own), or null to leave shared memory alone. */
  readonly shmDir: string | null;
  /** Processes the faults started for the journey (a namespace service started again), which count as its own. */
  readonly started: Set<number>;
}

export interface Fault {
  readonly name: string;
  apply(target: FaultTarget, random: SeededRandom): Promise<string | null>;
}

/**
 * What of the journey is no worker, and is left alone: tsx's esbuild service, and a cluster's own processes — a
 * job's supervisor and replica loop, a job's program (its driver, as the journey's program is), and the namespace
 * service (restartNamespace's).
 */
const NOT_WORKERS = [/esbuild/, /cluster\/local\/job-main\./, /cluster\/replica\/callable-main\./, /cluster\/namespace\/service-main\./, /exit_file=/];

/** Every process of the journey: under its program, and under what the faults started for it. */
export function journeyPids(target: FaultTarget): number[] {
  const all = new Set(processFamily(target.root));
  for (const pid of target.started) for (const p of isAlive(pid) ? processFamily(pid) : []) all.add(p);
  return [...all];
}

/** The journey's worker processes: its processes but its program and those NOT_WORKERS names. */
export function workerPids(target: FaultTarget): number[] {
  return journeyPids(target).filter((pid) => {
    if (pid === target.root) return false;
    const command = commandLine(pid);
    return command !== "" && !NOT_WORKERS.some((pattern) => pattern.test(command));
  });
}

/** What `pid` runs, for the fault's line: its script's file name, or its command. */
function program(pid: number): string {
  const words = commandLine(pid).trim().split(" ");
  const script = words.find((w) => /\.(ts|js|mjs)$/.test(w));
  return script ? script.slice(script.lastIndexOf("/") + 1) : (words[0] ?? "?");
}

export const killWorker: Fault = {
  name: "kill-worker",
  async apply(target, random) {
    const pid = random.pick(workerPids(target));
    if (pid === undefined) return null;
    const what = program(pid);
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      return null; // it ended meanwhile
    }
    return `SIGKILL ${pid} (${what})`;
  },
};

export const stopWorker: Fault = {
  name: "stop-worker",
  async apply(target, random) {
    const pid = random.pick(workerPids(target));
    if (pid === undefined) return null;
    const what = program(pid);
    try {
      process.kill(pid, "SIGSTOP");
    } catch {
      return null;
    }
    await sleep(target.stopMs); // the fault itself is a stretch of silence
    if (isAlive(pid)) process.kill(pid, "SIGCONT");
    return `SIGSTOP ${pid} (${what}) for ${target.stopMs} ms`;
  },
};

export const dropConnection: Fault = {
  name: "drop-connection",
  async apply(target, random) {
    const connection = random.pick(tcpConnections(workerPids(target)));
    if (!connection) return null;
    const [srcHost, srcPort] = connection.local.split(":");
    const [dstHost, dstPort] = connection.remote.split(":");
    execFileSync("ss", ["-K", "src", srcHost, "sport", "=", `:${srcPort}`, "dst", dstHost, "dport", "=", `:${dstPort}`], { stdio: "ignore" });
    return `dropped ${connection.local} → ${connection.remote}`;
  },
};

export const fillShm: Fault = {
  name: "fill-shm",
  async apply(target, random) {
    if (target.shmDir === null) return null;
    const { bavail, bsize } = statfsSync(target.shmDir);
    const bytes = Math.max(0, bavail * bsize - (1 << 20));
    const path = join(target.shmDir, `chaos-fill-${random.between(0, 1e9)}`);
    const fd = openSync(path, "wx", 0o600);
    try {
      ftruncateSync(fd, bytes);
      // tmpfs allocates on write: write one byte per page so the space is really taken.
      const page = Buffer.alloc(1);
      for (let at = 0; at < bytes; at += 4096) writeSync(fd, page, 0, 1, at);
      await sleep(random.between(500, 2_000));
    } finally {
      closeSync(fd);
      unlinkSync(path);
    }
    return `filled /dev/shm but 1 MiB (${Math.round(bytes / 2 ** 20)} MiB) for a moment`;
  },
};

/**
 * The cluster's namespace service SIGKILLed, then started again as a launch starts it (at the address it had): the
 * actors it hosted are gone, the names clients host come back, and its clients dial it again.
 */
export const restartNamespace: Fault = {
  name: "restart-namespace",
  async apply(target) {
    const pid = journeyPids(target).find((p) => /cluster\/namespace\/service-main\./.test(commandLine(p)));
    if (pid === undefined) return null;
    // node [flags] service-main.ts ADDR STATE_FILE CLUSTER_SPEC (service.ts): the cluster's state is two levels up.
    const args = commandLine(pid).trim().split(" ");
    const [stateFile, spec] = args.slice(-2);
    if (!serviceUp(stateFile, pid)) return null; // still starting (its starter waits for it): a restart is of one that runs
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      return null;
    }
    while (isAlive(pid)) await sleep(20);
    if (!existsSync(stateFile.replace(/service\.json$/, "port"))) return `SIGKILL ${pid} (its cluster was gone: not started again)`;
    const again = await new NamespaceService(dirname(dirname(stateFile)), spec).ensure();
    target.started.add(again.pid);
    return `SIGKILL ${pid}, started again as ${again.pid}`;
  },
};

/** Whether the service `pid` is up: its record (STATE_FILE) names it, with the start time its starter adds once it is. */
function serviceUp(stateFile: string, pid: number): boolean {
  try {
    const record = JSON.parse(readFileSync(stateFile, "utf8")) as { pid?: number; startTime?: string };
    return record.pid === pid && record.startTime !== undefined;
  } catch {
    return false;
  }
}

export const FAULTS: readonly Fault[] = [killWorker, stopWorker, dropConnection, fillShm, restartNamespace];
