// cluster/namespace: the cluster's namespace service: a detached process (service-main.ts)
// holding the cluster's named actors and serving the dashboard/. Uses cluster's top folder.
//
// A cluster's namespace service: the process that holds the cluster's named
// actors (service-main.ts). It starts on demand, the first time a
// job is launched, and outlives the jobs that use it; its state lives in the
// cluster's state directory, so any later process finds it:
//   namespace/token         the cluster's token (0600): every connection proves it
//   namespace/service.json  {addr, pid} of the running service
//   namespace/port          the port it listens on, kept for its restarts
//   namespace/service.log   its output
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAddress, tcpHostPort } from "../../runtime/net/address.ts";
import { config, settingName, settingNow } from "../../runtime/base/config.ts";
import { workerExecArgv } from "../../runtime/hosts/host-agent.ts";
import { pollUntil } from "../../runtime/base/poll.ts";
import { readJson, readText } from "../job-files.ts";
import { isRunning, signal, startTimeOf } from "../process-group.ts";

const ENTRY = fileURLToPath(new URL(`./service-main${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url));

/** Where a cluster's namespace service is, and the token its connections need. */
export interface NamespaceServiceInfo {
  readonly address: string;
  readonly token: string;
  readonly pid: number;
  /** Its dashboard (sign in with the token). */
  readonly dashboard: string;
}

interface ServiceRecord {
  readonly addr: string;
  readonly pid: number;
  readonly dashboard: string;
  readonly startTime?: string;
}

export class NamespaceService {
  readonly #dir: string;

  /** `clusterRoot`: the cluster's state directory; `spec`: the cluster's, for its dashboard. */
  constructor(
    clusterRoot: string,
    private readonly spec: string,
  ) {
    this.#dir = join(clusterRoot, "namespace");
  }

  /** The cluster's token, made on first use. */
  token(): string {
    const path = join(this.#dir, "token");
    if (!existsSync(path)) {
      mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      try {
        writeFileSync(path, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err; // another process made it first
      }
    }
    return readFileSync(path, "utf8").trim();
  }

  get tokenFile(): string {
    return join(this.#dir, "token");
  }

  /** The running service (its recorded process, started at its recorded time), or null. */
  async running(): Promise<NamespaceServiceInfo | null> {
    const record = readJson<ServiceRecord>(join(this.#dir, "service.json"));
    if (!record || !record.startTime || !isRunning(record.pid, record.startTime)) return null;
    return { address: record.addr, token: this.token(), pid: record.pid, dashboard: record.dashboard };
  }

  /** The running service, started if none runs (one start at a time, across processes). */
  async ensure(): Promise<NamespaceServiceInfo> {
    const up = await this.running();
    if (up) return up;
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    const lock = join(this.#dir, "starting");
    const deadline = { intervalMs: 50, deadlineMs: config.namespaceStartTimeoutMs, bound: settingNow("namespaceStartTimeoutMs") };
    let started: NamespaceServiceInfo | null = null;
    await pollUntil(
      async () => {
        try {
          mkdirSync(lock);
        } catch {
          return (started = await this.running()) !== null; // another process is starting it
        }
        try {
          started = (await this.running()) ?? (await this.#start()); // it may have started while we waited for the lock
          return true;
        } finally {
          rmSync(lock, { recursive: true, force: true });
        }
      },
      { ...deadline, what: () => `the namespace service of the cluster in ${this.#dir} to start (a process holds ${lock}; remove it if none does)` },
    );
    return started!;
  }

  /** Stops the running service, if any; the actors it hosts end with it. */
  async stop(): Promise<void> {
    const record = readJson<ServiceRecord>(join(this.#dir, "service.json"));
    if (!record?.startTime || !isRunning(record.pid, record.startTime)) return;
    signal(record.pid, "SIGTERM");
    await pollUntil(() => !isRunning(record.pid, record.startTime!), {
      intervalMs: 20,
      deadlineMs: config.terminateGraceMs,
      bound: settingNow("terminateGraceMs"),
      what: () => `namespace service ${record.pid} to exit`,
    }).catch(() => signal(record.pid, "SIGKILL"));
  }

  async #start(): Promise<NamespaceServiceInfo> {
    const token = this.token();
    const listen = this.#listenAddress();
    const stateFile = join(this.#dir, "service.json");
    rmSync(stateFile, { force: true });
    const log = openSync(join(this.#dir, "service.log"), "a");
    let child;
    try {
      // Detached: its own session, so it outlives whoever launched the first job.
      child = spawn(process.execPath, [...workerExecArgv(), ENTRY, await listen, stateFile, this.spec], {
        detached: true,
        stdio: ["ignore", log, log],
        env: { ...process.env, [settingName("token")]: token, NODE_TEST_CONTEXT: undefined },
      });
    } finally {
      closeSync(log);
    }
    child.unref();
    const pid = child.pid ?? -1;
    let exited: number | null = null;
    child.once("exit", (code) => (exited = code ?? 1));
    const record = await pollUntil(
      () => {
        if (exited !== null) {
          const tail = readText(join(this.#dir, "service.log")).trim().split("\n").slice(-3).join("; ");
          throw new Error(`the namespace service exited with code ${exited} as it started: ${tail} (log: ${join(this.#dir, "service.log")})`);
        }
        const r = readJson<ServiceRecord>(stateFile);
        return r?.pid === pid ? r : false;
      },
      {
        intervalMs: 20,
        deadlineMs: config.namespaceStartTimeoutMs,
        bound: settingNow("namespaceStartTimeoutMs"),
        what: () => `the namespace service (pid ${pid}) to start`,
      },
    );
    writeFileSync(stateFile, `${JSON.stringify({ ...record, startTime: startTimeOf(pid) })}\n`);
    return { address: record.addr, token, pid, dashboard: record.dashboard };
  }

  /** FRAY_NAMESPACE_LISTEN, with port 0 replaced by the port kept from an earlier start, or a free one. */
  async #listenAddress(): Promise<string> {
    const listen = config.namespaceListen;
    const { advertise } = parseAddress(listen);
    const { host, port } = tcpHostPort(advertise);
    if (port !== 0) return listen;
    if (listen.includes("@")) throw new TypeError(`${settingName("namespaceListen")}=${listen}: give a port when advertising one address and binding another`);
    const kept = Number(readText(join(this.#dir, "port")).trim());
    const chosen = kept > 0 ? kept : await freePort(host);
    writeFileSync(join(this.#dir, "port"), `${chosen}\n`);
    return `tcp://${host.includes(":") ? `[${host}]` : host}:${chosen}`;
  }
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen({ host, port: 0 }, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
