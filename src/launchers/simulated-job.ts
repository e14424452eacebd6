// SimulatedJob: a simulator of many hosts on one machine, for tests and
// benchmarks of large meshes. Each host is a virtual worker (a `fray worker`
// living as a virtual proc, mesh/virtual-workers.ts), many to one OS process,
// with the multi-host code path: TCP on 127.0.0.1, the token, remote host
// agents, heartbeats and supervision. Not parallelism: every host shares this
// machine's cores.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { settingName } from "./settings.ts";
import { nodeChildProcess, nodeReadline } from "../runtime/face/code.ts";
import { randomSimulatorPort, sessionToken, SIMULATOR_PORTS } from "../runtime/face/network.ts";
import { workerExecArgv } from "../runtime/face/hosts.ts";
import { attachToWorkers } from "../mesh/workers.ts";
import { Launcher, type LauncherState } from "./launcher.ts";
import { killChildren, pidsOf } from "./child-processes.ts";

export interface SimulatedJobOptions {
  /** Meshes to provision: name → number of simulated hosts. */
  readonly meshes: Readonly<Record<string, number>>;
  /** OS processes the hosts of all meshes are packed into; default the smaller of the hosts and this machine's cores. */
  readonly processes?: number;
  /** The shared token; default this process's (FRAY_TOKEN, else the one it made). */
  readonly token?: string;
}

const WORKER_MAIN = fileURLToPath(new URL(`./simulated-worker-main${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url));

/**
 * Ports of simulated hosts of this process's jobs. A client remembers a lost
 * peer's address as dead for good, so a host of a later job must not get the
 * address of an earlier job's.
 */
const portsUsed = new Set<number>();

/** Ports a simulating process may skip (something else listens there) before it gives up. */
const SPARE_PORTS = 64;

/** `n` distinct ports of the simulator's range (runtime/net/tcp-ports.ts) that no earlier host of this process had. */
function freshPorts(n: number): number[] {
  const [first, last] = SIMULATOR_PORTS;
  if (portsUsed.size + n > (last - first + 1) / 2) {
    throw new RangeError(
      `this process has simulated ${portsUsed.size} hosts, each on a port of its own for good (a client never reuses a lost peer's address); ` +
        `${n} more do not fit in ports ${first}-${last}: simulate the next ones in a new process`,
    );
  }
  const ports = new Set<number>();
  while (ports.size < n) {
    const port = randomSimulatorPort();
    if (!portsUsed.has(port)) ports.add(port);
  }
  return [...ports];
}

export class SimulatedJob extends Launcher {
  readonly #hosts: number;
  readonly #processes: number;
  readonly #token: string;
  #workers: ChildProcess[] = [];

  constructor(options: SimulatedJobOptions) {
    super(options.meshes, "hosts");
    this.#hosts = Object.values(options.meshes).reduce((a, b) => a + b, 0);
    if (this.#hosts < 1) throw new RangeError("SimulatedJob needs at least one mesh: pass meshes like { hosts: 1024 }");
    const processes = options.processes ?? Math.min(this.#hosts, availableParallelism());
    if (!Number.isInteger(processes) || processes < 1 || processes > this.#hosts) {
      throw new RangeError(`SimulatedJob option processes must be an integer from 1 to the number of hosts (${this.#hosts}), got ${processes}`);
    }
    this.#processes = processes;
    checkDescriptors(this.#hosts, processes);
    this.#token = options.token ?? sessionToken();
  }

  protected async provision(): Promise<LauncherState> {
    // Process i hosts every processes-th host from i: neighbouring ranks land in different processes.
    const shares = Array.from({ length: this.#processes }, (_, i) => Math.floor((this.#hosts - i - 1) / this.#processes) + 1);
    const ports = freshPorts(this.#hosts + SPARE_PORTS * this.#processes);
    let taken = 0;
    const started = await Promise.allSettled(shares.map((n) => this.#startProcess(n, ports.slice(taken, (taken += n + SPARE_PORTS)))));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) {
      await this.kill();
      throw failed.reason;
    }
    const lists = started.map((s) => (s as PromiseFulfilledResult<string[]>).value);
    for (const addr of lists.flat()) portsUsed.add(Number(/:(\d+)$/.exec(addr)![1]));
    const addrs = Array.from({ length: this.#hosts }, (_, h) => lists[h % this.#processes][Math.floor(h / this.#processes)]);
    const result: LauncherState = {};
    let next = 0;
    for (const [name, n] of Object.entries(this.meshes)) {
      result[name] = attachToWorkers(addrs.slice(next, (next += n)), { token: this.#token });
    }
    return result;
  }

  /** Starts one OS process of `hosts` virtual workers, on ports taken from `ports` in turn; resolves with their addresses. */
  async #startProcess(hosts: number, ports: readonly number[]): Promise<string[]> {
    // The token goes through the environment, never the command line.
    const child = nodeChildProcess().spawn(process.execPath, [...workerExecArgv(), WORKER_MAIN, String(hosts), ports.join(",")], {
      env: { ...process.env, [settingName("token")]: this.#token },
      stdio: ["pipe", "pipe", "inherit"],
    });
    this.#workers.push(child);
    child.unref();
    (child.stdin as unknown as { unref(): void }).unref();
    const lines = nodeReadline().createInterface({ input: child.stdout! });
    const [first] = await Promise.race([once(lines, "line"), once(child, "exit").then(() => [null])]);
    if (first === null) throw new Error(`a SimulatedJob process for ${hosts} hosts exited before it listened`);
    // What its procs write outside a streamed actor (say, at exit) is printed here.
    lines.on("line", (line) => process.stdout.write(`${line}\n`));
    (child.stdout as unknown as { unref(): void }).unref();
    return (first as string).replace(/^listening on /, "").split(" ");
  }

  /** Ends every process (and so every simulated host and proc). */
  async kill(): Promise<void> {
    await killChildren(this.#workers);
    this.#workers = [];
  }

  /** Process ids of the OS processes holding the simulated hosts. */
  get pids(): number[] {
    return pidsOf(this.#workers);
  }
}

/**
 * A host with one proc takes 2 file descriptors here (to its worker and its
 * proc) and 4 in its process (those two, and both listeners): refused up
 * front, not by EMFILE halfway through. Node raises its soft limit to the hard
 * one, so the hard limit (`ulimit -Hn`) is what counts.
 */
function checkDescriptors(hosts: number, processes: number): void {
  const limit = openFileLimit();
  const need = Math.max(2 * hosts, 4 * Math.ceil(hosts / processes)) + 64;
  if (limit !== null && need > limit) {
    throw new RangeError(
      `SimulatedJob: ${hosts} hosts in ${processes} processes need about ${need} open files in one process, over this process's limit of ` +
        `${limit}; raise it (ulimit -Hn), or simulate fewer hosts or in more processes`,
    );
  }
}

/** This process's limit of open files; null where /proc does not say (not Linux). */
function openFileLimit(): number | null {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const soft = Number(line?.split(/\s+/)[3]);
    return Number.isFinite(soft) ? soft : null;
  } catch {
    return null;
  }
}
