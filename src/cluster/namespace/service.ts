// cluster/namespace: the cluster's namespace service: a detached process (service-main.ts)
// holding the cluster's named actors and serving the dashboard/. Uses cluster's top folder.
//
// A cluster's namespace service: the process that holds the cluster's named
// actors (service-main.ts). It starts on demand, the first time a
// job is launched, and outlives the jobs that use it until it is idle, its
// state directory is gone, or it is stopped (service-lifetime.ts); its state
// lives in the cluster's state directory, so any later process finds it:
//   namespace/token         the cluster's token (0600): every connection proves it
//   namespace/service.json  {addr, pid} of the running service
//   namespace/port          the port it listens on, kept for its restarts
//   namespace/asked         touched by each launch: the service is not idle
//   namespace/service.log   its output
//   namespace/client-hosted the actors clients host, for its restarts (client-hosted-records.ts)
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAddress, tcpHostPort, useToken } from "../../runtime/face/network.ts";
import { config, settingName, settingNow } from "../settings.ts";
import { workerExecArgv } from "../../runtime/face/hosts.ts";
import { pollUntil } from "../../runtime/face/polling.ts";
import { actorMeshAt } from "../../mesh/mesh-at.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { readJson, readText, writeJson } from "../job-files.ts";
import { isRunning, signal, startTimeOf } from "../process-group.ts";
import { SERVICE_CONTROL_ID, serviceFiles, type ServiceControl } from "./service-lifetime.ts";

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
  readonly #files: ReturnType<typeof serviceFiles>;

  /** `clusterRoot`: the cluster's state directory; `spec`: the cluster's, for its dashboard. */
  constructor(
    clusterRoot: string,
    private readonly spec: string,
  ) {
    this.#dir = join(clusterRoot, "namespace");
    this.#files = serviceFiles(this.#dir);
  }

  /** Its state directory (the files listed above). */
  get dir(): string {
    return this.#dir;
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
    const record = readJson<ServiceRecord>(this.#files.record);
    if (!record || !record.startTime || !isRunning(record.pid, record.startTime)) return null;
    return { address: record.addr, token: this.token(), pid: record.pid, dashboard: record.dashboard };
  }

  /** The running service, started if none runs (one start at a time, across processes). */
  async ensure(): Promise<NamespaceServiceInfo> {
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    // Before the record is read: a service leaving for want of use looks at this after hiding its record (service-lifetime.ts).
    writeFileSync(this.#files.asked, `${process.pid} ${Date.now()} ${randomBytes(4).toString("hex")}\n`);
    const up = await this.running();
    if (up) return up;
    const lock = this.#files.startLock;
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

  /**
   * Stops the running service, if any; the actors it hosts end with it. `ask`: by a call that proves the cluster's
   * token, as every call to it must (`fray cluster stop`; it makes this process's runtime, with the cluster's token,
   * if it has none yet); else by SIGTERM, which only its user may send, leaving this process's runtime alone.
   * Resolves to its pid once it has exited, or null if none ran. A refused call throws, and the service runs on; one
   * that does not exit within FRAY_TERMINATE_GRACE_MS is killed (SIGKILL).
   */
  async stop(ask: boolean): Promise<number | null> {
    const record = readJson<ServiceRecord>(this.#files.record);
    if (!record?.startTime || !isRunning(record.pid, record.startTime)) return null;
    const { pid, startTime } = record;
    const grace = { intervalMs: 20, deadlineMs: config.terminateGraceMs, bound: settingNow("terminateGraceMs") };
    const exited = pollUntil(() => !isRunning(pid, startTime), { ...grace, what: `namespace service ${pid} to exit` }).then(
      () => true,
      () => false,
    );
    const refusal = ask ? await Promise.race([this.#ask(record), exited.then(() => null)]) : (signal(pid, "SIGTERM"), null);
    if (await exited) return pid; // an answer lost as it exited is no refusal
    if (refusal) throw new Error(`the namespace service (pid ${pid}) at ${record.addr} refused to stop: ${refusal.message}`, { cause: refusal });
    signal(pid, "SIGKILL"); // told to, it did not exit
    await pollUntil(() => !isRunning(pid, startTime), { ...grace, what: `namespace service ${pid} to exit after SIGKILL` });
    return pid;
  }

  /** Calls the service's ServiceControl.shutdown; resolves to why it failed, or null once it answered. */
  async #ask(record: ServiceRecord): Promise<Error | null> {
    const cannot = (why: string) =>
      new Error(`cannot ask the namespace service at ${record.addr} to stop: ${why}; stop it without asking, or from another process`);
    try {
      useToken(this.token());
    } catch (err) {
      throw cannot((err as Error).message);
    }
    if (currentProc().lostPeer(record.addr)) throw cannot("this process lost an earlier service at that address, and does not dial it again");
    const control = actorMeshAt<ServiceControl>(record.addr, SERVICE_CONTROL_ID, "namespace-service", null, "ServiceControl");
    return control.shutdown.callOne(`pid ${process.pid}`).then(
      () => null,
      (err: Error) => err,
    );
  }

  async #start(): Promise<NamespaceServiceInfo> {
    const token = this.token();
    const listen = this.#listenAddress();
    const stateFile = this.#files.record;
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
    writeJson(stateFile, { ...record, startTime: startTimeOf(pid) }); // whole: the service reads it too
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
