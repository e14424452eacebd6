// The faults the chaos run injects into a running journey, from outside it as an operator's bad day would: a
// worker SIGKILLed, a worker stopped (SIGSTOP) past the heartbeat's patience, one TCP connection of the
// journey's processes dropped (`ss -K`), /dev/shm filled for a moment. Each says what it did, or null when the
// journey had nothing it applies to (no worker process yet, no connection).
import { execFileSync } from "node:child_process";
import { openSync, closeSync, ftruncateSync, statfsSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
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
}

export interface Fault {
  readonly name: string;
  apply(target: FaultTarget, random: SeededRandom): Promise<string | null>;
}

/** The journey's worker processes: everything under its program but the program and tsx's esbuild service. */
export function workerPids(root: number): number[] {
  return processFamily(root).filter((pid) => pid !== root && !commandLine(pid).includes("esbuild"));
}

export const killWorker: Fault = {
  name: "kill-worker",
  async apply(target, random) {
    const pid = random.pick(workerPids(target.root));
    if (pid === undefined) return null;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      return null; // it ended meanwhile
    }
    return `SIGKILL ${pid}`;
  },
};

export const stopWorker: Fault = {
  name: "stop-worker",
  async apply(target, random) {
    const pid = random.pick(workerPids(target.root));
    if (pid === undefined) return null;
    try {
      process.kill(pid, "SIGSTOP");
    } catch {
      return null;
    }
    await sleep(target.stopMs); // the fault itself is a stretch of silence
    if (isAlive(pid)) process.kill(pid, "SIGCONT");
    return `SIGSTOP ${pid} for ${target.stopMs} ms`;
  },
};

export const dropConnection: Fault = {
  name: "drop-connection",
  async apply(target, random) {
    const connection = random.pick(tcpConnections(processFamily(target.root)));
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

export const FAULTS: readonly Fault[] = [killWorker, stopWorker, dropConnection, fillShm];
