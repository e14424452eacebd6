// runtime/hosts: agents that start procs: on this machine (this file) and for remote
// clients of a `fray worker` (remote-agent.ts, which serves "procs" messages). They are given
// the Proc that starts the procs; use net/ for addresses and credentials, output/ to carry a
// child's output, and calls/ to send an exit after the calls before it.
//
// The local host agent: starts workers on this machine and watches them. A
// worker runs the bootstrap entry and serves a Proc; it is either a Node
// process started with this process's loader flags (so TypeScript through tsx
// works there too), which exits when its parent does — its stdin is a pipe
// from the parent, closed by the kernel however the parent dies — or a worker
// thread of this process. Either way its death is reported from its exit
// status, and one that stops answering heartbeats is killed and reported.
// A worker process leads a process group of its own, so the subprocesses its
// tasks and actors start end with it: killing it kills the group, and what is
// left of the group when it exits is killed then (see mesh/worker/serve-worker.ts
// for when its parent dies).
import type { ChildProcess } from "node:child_process";
import { pathToFileURL } from "node:url";
import { MessagePortTransport } from "../../wire/message-port-transport.ts";
import { config, settingName, settingNow } from "../base/config.ts";
import { requireLoadsEsm } from "../code/esm-require.ts";
import { nodeChildProcess, nodeWorkerThreads } from "../code/lazy-builtins.ts";
import { tokenEnv } from "../net/credentials.ts";
import { deviceEnv, envWith, type ProcPlace } from "../base/device-env.ts";
import { withHugePages } from "./huge-pages.ts";
import { ConnectionError } from "../base/errors.ts";
import { hold, release } from "../base/keep-alive.ts";
import { CALLS } from "../calls/calls.ts";
import { heartbeat } from "../proc/heartbeat.ts";
import { recordPid } from "../proc/proc-pids.ts";
import type { Proc } from "../proc/proc.ts";
import { streamWorkerOutput, type WorkerLog } from "../output/worker-output.ts";
import { threadSpawning } from "./thread-spawn.ts";
import { childPidList, endThreadChildren } from "./thread-children.ts";
import { resolveTsx, typeScriptFlags } from "./typescript-loader.ts";

export interface ProcExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface ProcHandle {
  readonly addr: string;
  /** The OS process id; -1 for a thread. */
  readonly pid: number;
  /** "worker process 123" or "worker thread 4", for messages. */
  readonly label: string;
  /** Resolves when the worker has connected back; rejects if it failed to start. */
  readonly ready: Promise<void>;
  readonly exited: Promise<ProcExit>;
  kill(signal?: NodeJS.Signals): void;
  /** Asks the worker to exit, kills it after FRAY_PROC_STOP_TIMEOUT_MS, and waits. */
  stop(): Promise<ProcExit>;
}

/**
 * What a worker runs: `module`, an ES module, in a thread, and in a process whose node loads code through
 * loader hooks (tsx, a user's --import); `commonjs`, where there is one (fray compiled), in any other
 * process: it starts for less CPU (mesh/worker/process-entry.cts).
 */
export interface WorkerEntry {
  readonly module: string;
  readonly commonjs: string | null;
}

/** What starting a worker gives, process or thread alike. */
interface Started {
  readonly pid: number;
  readonly label: string;
  readonly exited: Promise<ProcExit>;
  readonly failedToStart: Promise<Error>;
  kill(signal: NodeJS.Signals): void;
}

// Flags that make sense for this process only; those that take a value may have it as the next argument, which is
// skipped too (else a worker takes `node --test --test-name-pattern NAME`'s NAME for its script).
const NOT_INHERITED = /^--(test|inspect|watch|eval|print|input-type|debug-port|experimental-test)/;
const TAKES_VALUE =
  /^(--eval|--print|--input-type|--debug-port|--inspect-port|--watch-path|--test-(name-pattern|skip-pattern|reporter|reporter-destination|concurrency|timeout|shard|isolation|global-setup|coverage-include|coverage-exclude|coverage-branches|coverage-functions|coverage-lines)|-e|-p)$/;

export function workerExecArgv(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    if (NOT_INHERITED.test(argv[i]) || argv[i] === "-e" || argv[i] === "-p") {
      if (TAKES_VALUE.test(argv[i])) i++;
      continue;
    }
    out.push(argv[i]);
  }
  // Stack traces from workers point at the user's sources when this process maps them (set by API, not flag).
  if ((process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled && !out.includes("--enable-source-maps")) out.push("--enable-source-maps");
  return out;
}

const children = new Set<ChildProcess>();
/** The pid lists of the worker threads running: their subprocesses, which end with them (thread-children.ts). */
const threadChildren = new Set<Int32Array>();
process.once("exit", () => {
  for (const child of children) signalGroup(child, "SIGKILL");
  for (const pids of threadChildren) endThreadChildren(pids);
});

/** Worker processes lead a process group of their own, where process groups exist. */
const GROUPS = process.platform !== "win32";

/** Sends `signal` to `child`'s process group: the worker and every process it started that did not leave the group. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (GROUPS && child.pid !== undefined) return void process.kill(-child.pid, signal);
  } catch {
    // The group is gone (all of it exited): the worker is signalled as itself, which does nothing to one that exited.
  }
  child.kill(signal);
}

/** How long an exited worker's output pipes may stay open (held by a subprocess that left its group) before its exit is told anyway. */
const PIPES_CLOSE_MS = 1_000;

/** Resolves once `child`'s stdio pipes closed (all its output read), or PIPES_CLOSE_MS after it exited. */
function pipesClosed(child: ChildProcess): Promise<void> {
  if (child.stdout?.closed !== false && child.stderr?.closed !== false) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, PIPES_CLOSE_MS).unref();
    child.once("close", () => (clearTimeout(timer), resolve()));
  });
}

function startProcess(entry: WorkerEntry, env: Record<string, string | undefined>, addr: string, log?: WorkerLog, typescript = false): Started {
  const flags = workerExecArgv();
  if (typescript) flags.push(...typeScriptFlags(flags));
  const file = entry.commonjs !== null && requireLoadsEsm(flags) ? entry.commonjs : entry.module;
  const child = nodeChildProcess().spawn(process.execPath, [...flags, file], {
    env: withHugePages(envWith(env)),
    stdio: ["pipe", log ? "pipe" : "inherit", log ? "pipe" : "inherit"],
    detached: GROUPS, // a group of its own; it still exits with this process (its stdin)
  });
  children.add(child);
  child.unref();
  for (const pipe of [child.stdin, child.stdout, child.stderr]) (pipe as unknown as { unref(): void } | null)?.unref();
  if (log) streamWorkerOutput(addr, log, child);
  return {
    pid: child.pid ?? -1,
    label: `worker process ${child.pid}`,
    exited: new Promise((resolve) =>
      child.once("exit", (code, signal) => {
        children.delete(child);
        if (GROUPS) signalGroup(child, "SIGKILL"); // its subprocesses that outlived it (a cancelled task's, say): none is orphaned
        // What it wrote last (a line left unfinished is written as it exits) is read before its exit is told, or a
        // program that ends once its procs stopped loses it; a subprocess that left its group holding the pipes is not waited for.
        void (log ? pipesClosed(child) : Promise.resolve()).then(() => resolve({ code, signal }));
      }),
    ),
    failedToStart: new Promise((resolve) =>
      child.once("error", (err) => resolve(new ConnectionError(`cannot start a worker process: ${err.message}`, { cause: err }))),
    ),
    kill: (signal) => signalGroup(child, signal),
  };
}

/**
 * Worker threads do not inherit loader hooks, so when this process runs
 * TypeScript through tsx (its sources, or a user's), the thread registers tsx
 * first.
 */
function threadEntry(entry: string): string {
  const url = pathToFileURL(entry).href;
  const underTsx = entry.endsWith(".ts") || process.execArgv.some((a) => a.includes("tsx"));
  if (!underTsx) return `import(${JSON.stringify(url)})`;
  const tsx = resolveTsx("tsx/esm/api");
  if (!tsx) throw new Error("running TypeScript in worker threads needs the tsx package (npm install tsx), or compile to JavaScript first");
  return `import(${JSON.stringify(tsx)}).then((m) => m.register()).then(() => import(${JSON.stringify(url)}))`;
}

function startThread(proc: Proc, entry: WorkerEntry, env: Record<string, string | undefined>, addr: string, log?: WorkerLog): Started {
  // Parent and thread talk over a MessagePort, not a socket.
  const { port1, port2 } = new MessageChannel(); // node's global: loads node:worker_threads' ports only
  const { workerData, afterPost } = threadSpawning(); // what upper layers add to each thread (thread-spawn.ts)
  const childPids = childPidList();
  // Threads take few process flags (no V8 options); loaders are registered by threadEntry instead.
  const worker = new (nodeWorkerThreads().Worker)(threadEntry(entry.module), {
    eval: true,
    env: envWith(env),
    execArgv: [],
    workerData: { ...workerData, ...childPids.workerData, frayParentPort: port2 },
    transferList: [port2],
    stdout: !!log,
    stderr: !!log,
  });
  worker.unref();
  threadChildren.add(childPids.pids);
  if (log) streamWorkerOutput(addr, log, worker);
  proc.acceptTransport(new MessagePortTransport(port1, afterPost));
  return {
    pid: -1,
    label: `worker thread ${worker.threadId}`,
    exited: new Promise((resolve) =>
      worker.once("exit", (code) => {
        threadChildren.delete(childPids.pids);
        endThreadChildren(childPids.pids); // the subprocesses it started that outlived it: none is left behind
        resolve({ code, signal: null });
      }),
    ),
    failedToStart: new Promise((resolve) =>
      worker.once("error", (err) => resolve(new ConnectionError(`worker thread failed: ${err.message}`, { cause: err }))),
    ),
    kill: () => void worker.terminate(),
  };
}

/**
 * Starts a worker running `entry` (mesh/host-mesh.ts's WORKER_ENTRY) as a process,
 * or as a thread. `place`: where it is in its mesh, for its rank environment
 * (device-env.ts); null when it shares its process with other procs. `log`:
 * stream its output, tagged (worker-output.ts); absent, it writes to this
 * process's terminal as it is. `typescript`: a process that must load
 * TypeScript though this one may not (a remote client's, typescript-loader.ts).
 */
export function startProc(
  proc: Proc,
  entry: WorkerEntry,
  options: { thread?: boolean; addr?: string; bind?: string; place?: ProcPlace | null; log?: WorkerLog; typescript?: boolean } = {},
): ProcHandle {
  const { addr, bind } = options.addr ? { addr: options.addr, bind: options.bind } : proc.childAddr();
  const placed = options.place === undefined ? {} : deviceEnv(options.place, options.thread ?? false);
  const env = {
    ...tokenEnv(),
    ...placed,
    [settingName("procAddr")]: bind ? `${addr}@${bind}` : addr,
    [settingName("parentAddr")]: proc.addr,
    [settingName("logStream")]: options.log ? "1" : "0",
  };
  const started = options.thread ? startThread(proc, entry, env, addr, options.log) : startProcess(entry, env, addr, options.log, options.typescript);
  const { label } = started;
  recordPid(addr, started.pid);
  const connected = proc.expectPeer(addr);
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new ConnectionError(`${label} did not start within ${config.procStartTimeoutMs} ms (${settingName("procStartTimeoutMs")})`)),
      config.procStartTimeoutMs,
    );
    timer.unref();
    connected.then(() => (clearTimeout(timer), resolve()));
    started.failedToStart.then((err) => (clearTimeout(timer), reject(err)));
    started.exited.then((exit) => (clearTimeout(timer), reject(new ConnectionError(`${label} exited during start (${describeExit(exit)})`))));
  });
  // Whoever awaits the start keeps the process alive; an idle worker does not.
  hold();
  ready.then(release, release);
  proc.adoptChild(addr);
  let stopping = false;
  let hung: Error | null = null;
  const stopHeartbeat = heartbeat(proc, addr, ready, (silentMs) => {
    hung = new ConnectionError(`${label} stopped responding: no heartbeat for ${silentMs} ms (${settingNow("heartbeatTimeoutMs")}); killed it`);
    started.kill("SIGKILL");
  });
  started.exited.then((exit) => {
    stopHeartbeat();
    if (stopping) proc.childExited(addr, new ConnectionError(`${label} was stopped`), false);
    else proc.childExited(addr, hung ?? exitError(label, started.pid, exit), true);
  });
  return {
    addr,
    pid: started.pid,
    label,
    ready,
    exited: started.exited,
    kill: (signal = "SIGTERM") => started.kill(signal),
    stop: async () => {
      stopping = true;
      hold();
      const timer = setTimeout(() => started.kill("SIGKILL"), config.procStopTimeoutMs);
      try {
        proc.get(CALLS).sendAfterCalls(addr, { kind: "exit" });
        return await started.exited;
      } finally {
        clearTimeout(timer);
        release();
      }
    },
  };
}

/** A worker's exit as the error its callers see; a process's carries its pid, signal and exit code as fields (../supervision/process-exit.ts). */
function exitError(label: string, pid: number, exit: ProcExit): ConnectionError {
  const error = new ConnectionError(`${label} ${describeExit(exit)}`);
  return pid > 0 ? Object.assign(error, { pid, signal: exit.signal, exitCode: exit.code }) : error;
}

export function describeExit({ code, signal }: ProcExit): string {
  return signal ? `was killed by ${signal}` : `exited with code ${code}`;
}
