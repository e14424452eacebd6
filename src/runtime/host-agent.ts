// The local host agent: starts worker processes on this machine and watches
// them. Each worker is a Node process running the bootstrap entry, started with
// this process's loader flags (so TypeScript run through tsx works in workers
// too), and exits when its parent does: its stdin is a pipe from the parent,
// which the kernel closes however the parent dies.
import { spawn, type ChildProcess } from "node:child_process";
import { config } from "./config.ts";
import { hold, release } from "./keep-alive.ts";
import { ConnectionError } from "./errors.ts";
import { Proc } from "./proc.ts";

export interface ProcExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface ProcHandle {
  readonly addr: string;
  readonly pid: number;
  /** Resolves when the process has connected back; rejects if it failed to start. */
  readonly ready: Promise<void>;
  readonly exited: Promise<ProcExit>;
  kill(signal?: NodeJS.Signals): void;
  /** Asks the process to exit, SIGKILLs it after FRAY_PROC_STOP_TIMEOUT_MS, and waits. */
  stop(): Promise<ProcExit>;
}

// Flags that make sense for this process only.
const NOT_INHERITED = /^--(test|inspect|watch|eval|print|input-type|debug-port|experimental-test)/;

export function workerExecArgv(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    if (NOT_INHERITED.test(argv[i]) || argv[i] === "-e" || argv[i] === "-p") {
      if (!argv[i].includes("=") && argv[i + 1] && !argv[i + 1].startsWith("-") && /^--(eval|print|input-type|debug-port)$|^-[ep]$/.test(argv[i])) i++;
      continue;
    }
    out.push(argv[i]);
  }
  return out;
}

const children = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** Starts a worker process running `entry` (a module path) that serves a Proc. */
export function startProc(entry: string, env: Record<string, string> = {}): ProcHandle {
  const proc = Proc.current();
  const addr = proc.childAddr();
  const child = spawn(process.execPath, [...workerExecArgv(), entry], {
    env: { ...process.env, ...env, FRAY_PROC_ADDR: addr, FRAY_PARENT_ADDR: proc.addr },
    stdio: ["pipe", "inherit", "inherit"],
  });
  children.add(child);
  child.unref();
  (child.stdin as unknown as { unref(): void }).unref();
  const exited = new Promise<ProcExit>((resolve) => {
    child.once("exit", (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  const connected = proc.expectPeer(addr);
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ConnectionError(`process ${child.pid} did not start within ${config.procStartTimeoutMs} ms (FRAY_PROC_START_TIMEOUT_MS)`)), config.procStartTimeoutMs);
    timer.unref();
    connected.then(() => (clearTimeout(timer), resolve()));
    child.once("error", (err) => (clearTimeout(timer), reject(new ConnectionError(`cannot start a worker process: ${err.message}`, { cause: err }))));
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new ConnectionError(`worker process ${child.pid} exited during start (${describeExit({ code, signal })})`));
    });
  });
  // Whoever awaits the start keeps the process alive; an idle worker does not.
  hold();
  ready.then(release, release);
  // Death is reported from the exit status (naming the signal), not from the socket closing.
  proc.adoptChild(addr);
  let stopping = false;
  let hung: Error | null = null;
  const stopHeartbeat = heartbeat(proc, addr, ready, (silentMs) => {
    hung = new ConnectionError(`worker process ${child.pid} stopped responding: no heartbeat for ${silentMs} ms (FRAY_HEARTBEAT_TIMEOUT_MS=${config.heartbeatTimeoutMs}); killed it`);
    child.kill("SIGKILL");
  });
  exited.then((exit) => {
    stopHeartbeat();
    if (stopping) proc.childExited(addr, new ConnectionError(`worker process ${child.pid} was stopped`), false);
    else proc.childExited(addr, hung ?? new ConnectionError(`worker process ${child.pid} ${describeExit(exit)}`), true);
  });
  return {
    addr,
    pid: child.pid ?? -1,
    ready,
    exited,
    kill: (signal = "SIGTERM") => void child.kill(signal),
    stop: async () => {
      stopping = true;
      hold();
      const timer = setTimeout(() => child.kill("SIGKILL"), config.procStopTimeoutMs);
      try {
        proc.send(addr, { k: "exit" });
        return await exited;
      } finally {
        clearTimeout(timer);
        release();
      }
    },
  };
}

/**
 * Pings the worker every FRAY_HEARTBEAT_INTERVAL_MS once it is up; calls
 * `onHung` when it has not answered for FRAY_HEARTBEAT_TIMEOUT_MS (a stopped
 * or wedged process keeps its socket open, so only silence shows it).
 */
function heartbeat(proc: Proc, addr: string, ready: Promise<void>, onHung: (silentMs: number) => void): () => void {
  let lastHeard = Date.now();
  let timer: NodeJS.Timeout | null = null;
  const port = proc.openPort(() => (lastHeard = Date.now()));
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = null;
    proc.closePort(port);
  };
  ready.then(() => {
    lastHeard = Date.now();
    timer = setInterval(() => {
      const silent = Date.now() - lastHeard;
      if (silent > config.heartbeatTimeoutMs) {
        stop();
        onHung(silent);
        return;
      }
      proc.send(addr, { k: "ping", reply: { addr: proc.addr, id: port } });
    }, Math.min(config.heartbeatIntervalMs, config.heartbeatTimeoutMs / 2));
    timer.unref();
  }, stop);
  return stop;
}

export function describeExit({ code, signal }: ProcExit): string {
  return signal ? `was killed by ${signal}` : `exited with code ${code}`;
}
