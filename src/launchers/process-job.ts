// ProcessJob: hosts made of local `fray worker` processes — the multi-host
// code path (TCP, tokens, remote host agents) on one machine, and the model
// for the Slurm, SkyPilot and Kubernetes launchers.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { freePort, sessionToken } from "../runtime/face/network.ts";
import { settingName } from "./settings.ts";
import { nodeChildProcess, nodeReadline } from "../runtime/face/code.ts";
import { workerExecArgv } from "../runtime/face/hosts.ts";
import { attachToWorkers } from "../mesh/workers.ts";
import { Launcher, type LauncherState } from "./launcher.ts";
import { killChildren, pidsOf } from "./child-processes.ts";

export interface ProcessJobOptions {
  /** Meshes to provision: name → number of hosts. */
  readonly meshes: Readonly<Record<string, number>>;
  /** The shared token; default this process's (FRAY_TOKEN, else the one it made). */
  readonly token?: string;
}

const WORKER_MAIN = fileURLToPath(new URL(`./worker-main${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url));

export class ProcessJob extends Launcher {
  readonly #options: ProcessJobOptions;
  readonly #token: string;
  #workers: ChildProcess[] = [];

  constructor(options: ProcessJobOptions) {
    super(options.meshes, "hosts");
    this.#options = options;
    this.#token = options.token ?? sessionToken(); // this process's token: its meshes and the workers' agree
  }

  protected async provision(): Promise<LauncherState> {
    const result: LauncherState = {};
    for (const [name, n] of Object.entries(this.#options.meshes)) {
      const addrs = await Promise.all(Array.from({ length: n }, () => this.#startWorker()));
      result[name] = attachToWorkers(addrs, { token: this.#token });
    }
    return result;
  }

  async #startWorker(): Promise<string> {
    const port = await freePort();
    const addr = `tcp://127.0.0.1:${port}`;
    // The token goes through the environment, never the command line.
    const child = nodeChildProcess().spawn(process.execPath, [...workerExecArgv(), WORKER_MAIN, addr], {
      env: { ...process.env, [settingName("token")]: this.#token },
      stdio: ["pipe", "pipe", "inherit"],
    });
    this.#workers.push(child);
    child.unref();
    (child.stdin as unknown as { unref(): void }).unref();
    const lines = nodeReadline().createInterface({ input: child.stdout! });
    const [first] = await Promise.race([once(lines, "line"), once(child, "exit").then(() => [null])]);
    if (first === null) throw new Error(`a worker for ${addr} exited before it listened`);
    (child.stdout as unknown as { unref(): void }).unref();
    return addr;
  }

  /** Ends every worker (and so every proc they started). */
  async kill(): Promise<void> {
    await killChildren(this.#workers);
    this.#workers = [];
  }

  /** Process ids of the workers. */
  get pids(): number[] {
    return pidsOf(this.#workers);
  }
}
