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
  exited.then((exit) => proc.peerLost(addr, new ConnectionError(`worker process ${child.pid} ${describeExit(exit)}`)));
  return {
    addr,
    pid: child.pid ?? -1,
    ready,
    exited,
    kill: (signal = "SIGTERM") => void child.kill(signal),
    stop: async () => {
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

export function describeExit({ code, signal }: ProcExit): string {
  return signal ? `was killed by ${signal}` : `exited with code ${code}`;
}
