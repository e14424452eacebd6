// SkyPilotJob: hosts on any cloud or Kubernetes cluster SkyPilot reaches. One
// cluster with a node per host of every mesh runs `fray worker` on each node;
// the head node prints every node's IP, which the client reads from
// `sky logs` and attaches to (meshes take the nodes in order). Drives the
// `sky` CLI; kill() is `sky down`. Parameters follow Monarch's SkyPilotJob.
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { optionOrSetting } from "./settings.ts";
import { execFileText as run } from "../runtime/face/code.ts";
import { sessionToken } from "../runtime/face/network.ts";
import { hold, release } from "../runtime/face/procs.ts";
import { attachToWorkers } from "../mesh/workers.ts";
import { Launcher, type LauncherState } from "./launcher.ts";

export interface SkyPilotJobOptions {
  /** Meshes to provision: name → number of nodes. */
  readonly meshes: Readonly<Record<string, number>>;
  /** SkyPilot resources, as in a task YAML (`accelerators`, `cloud`, `cpus`, `image_id`, …). */
  readonly resources?: Readonly<Record<string, unknown>>;
  readonly clusterName?: string;
  /** The workers' port (opened through `resources.ports`); default 22222. */
  readonly port?: number;
  readonly idleMinutesToAutostop?: number;
  /** Tear the cluster down on autostop instead of stopping it; default true. */
  readonly downOnAutostop?: boolean;
  /** Shell commands run once per node before the workers (install Node and your code). */
  readonly setupCommands?: readonly string[];
  /** Local directory synced to ~/sky_workdir on every node. */
  readonly workdir?: string;
  /** Remote path → local path, copied to every node. */
  readonly fileMounts?: Readonly<Record<string, string>>;
  /** The command that runs `fray` on the nodes; default "npx fray". */
  readonly frayCommand?: string;
  /** The `sky` executable; default "sky" on PATH. */
  readonly sky?: string;
  /** How long to wait for the nodes, in ms; default FRAY_CLOUD_START_TIMEOUT_MS (30 minutes). */
  readonly startTimeoutMs?: number;
}

const TOKEN_PATH = "~/.fray/token";

export class SkyPilotJob extends Launcher {
  readonly #options: SkyPilotJobOptions;
  readonly #cluster: string;
  // Named now (task() shows it), made by provision(): a job that is only inspected leaves nothing behind.
  readonly #dir = join(tmpdir(), `fray-sky-${randomBytes(6).toString("hex")}`);
  #launched = false;

  constructor(options: SkyPilotJobOptions) {
    super(options.meshes, "nodes");
    this.#options = options;
    this.#cluster = options.clusterName ?? `fray-${process.pid}`;
  }

  get clusterName(): string {
    return this.#cluster;
  }

  /** The SkyPilot task this job launches (written as JSON, which is YAML). */
  task(): Record<string, unknown> {
    const o = this.#options;
    const port = o.port ?? 22222;
    const nodes = Object.values(o.meshes).reduce((a, b) => a + b, 0);
    const fray = o.frayCommand ?? "npx fray";
    // Each node advertises and binds its own IP (SKYPILOT_NODE_IPS, one per line, in rank order).
    const runScript = [
      'MY_IP=$(echo "$SKYPILOT_NODE_IPS" | sed -n "$((SKYPILOT_NODE_RANK + 1))p")',
      'if [ "$SKYPILOT_NODE_RANK" = 0 ]; then echo "fray-nodes $(echo $SKYPILOT_NODE_IPS)"; fi',
      `exec ${fray} worker --listen "tcp://$MY_IP:${port}" --token-file ${TOKEN_PATH}`,
    ].join("\n");
    return {
      name: this.#cluster,
      num_nodes: nodes,
      resources: { ...(o.resources ?? {}), ports: [port] },
      ...(o.workdir ? { workdir: o.workdir } : {}),
      // The token travels as a file mount, never in the task's envs or command lines.
      file_mounts: { ...(o.fileMounts ?? {}), [TOKEN_PATH]: join(this.#dir, "token") },
      ...(o.setupCommands?.length ? { setup: o.setupCommands.join("\n") } : {}),
      run: runScript,
    };
  }

  /** Launches the cluster and waits for every node. */
  protected async provision(): Promise<LauncherState> {
    const token = sessionToken();
    mkdirSync(this.#dir, { mode: 0o700 });
    writeFileSync(join(this.#dir, "token"), token, { mode: 0o600 });
    const taskFile = join(this.#dir, "task.yaml");
    writeFileSync(taskFile, JSON.stringify(this.task(), null, 2));
    const args = ["launch", "-y", "-d", "-c", this.#cluster];
    if (this.#options.idleMinutesToAutostop !== undefined) args.push("--idle-minutes-to-autostop", String(this.#options.idleMinutesToAutostop));
    if (this.#options.downOnAutostop ?? true) args.push("--down");
    args.push(taskFile);
    this.#launched = true;
    await this.#sky(args);
    const ips = await this.#nodeIps();
    const port = this.#options.port ?? 22222;
    const result: LauncherState = {};
    let next = 0;
    for (const [name, n] of Object.entries(this.#options.meshes)) {
      result[name] = attachToWorkers(
        ips.slice(next, next + n).map((ip) => `tcp://${ip}:${port}`),
        { token },
      );
      next += n;
    }
    return result;
  }

  /** Reads the head node's "fray-nodes IP …" line from `sky logs`. */
  async #nodeIps(): Promise<string[]> {
    const { ms, bound } = optionOrSetting("startTimeoutMs", this.#options.startTimeoutMs, "cloudStartTimeoutMs");
    // The sky CLI offers nothing to wait on. (poll.ts loads on use: every actor module imports `fray/mesh`, which exports this launcher.)
    const { pollUntil } = await import("../runtime/face/polling.ts");
    return pollUntil(
      async () => {
        const { stdout } = await this.#sky(["logs", this.#cluster, "--no-follow"]).catch(() => ({ stdout: "" }));
        const line = stdout.split("\n").find((l) => l.includes("fray-nodes "));
        return line
          ? line
              .slice(line.indexOf("fray-nodes ") + "fray-nodes ".length)
              .trim()
              .split(/\s+/)
          : undefined;
      },
      { intervalMs: 1000, deadlineMs: ms, bound, what: `the nodes of SkyPilot cluster ${this.#cluster} to report`, hint: `see 'sky logs ${this.#cluster}'` },
    );
  }

  async #sky(args: string[]): Promise<{ stdout: string }> {
    const sky = this.#options.sky ?? "sky";
    return run(sky, args, { maxBuffer: 64 * 1024 * 1024 }).catch((err: Error & { stderr?: string; code?: string }) => {
      if (err.code === "ENOENT")
        throw new Error(`the SkyPilot CLI '${sky}' was not found; install SkyPilot (pip install skypilot) or pass { sky: PATH }`, { cause: err });
      throw new Error(`sky ${args[0]} failed: ${err.stderr?.trim() || err.message}`, { cause: err });
    });
  }

  /** Tears the cluster down (`sky down`). */
  async kill(): Promise<void> {
    hold();
    try {
      if (this.#launched) await this.#sky(["down", "-y", this.#cluster]);
    } finally {
      release();
      rmSync(this.#dir, { recursive: true, force: true });
    }
  }
}
