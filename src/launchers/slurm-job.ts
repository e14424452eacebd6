// SlurmJob: hosts from a Slurm allocation. One batch job per mesh runs a
// `fray worker` on every node (srun, one task per node); each worker writes
// its address into the job's directory once it listens; the client attaches.
// kill() cancels the jobs (scancel) and waits until Slurm no longer lists them.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { config, optionOrSetting, settingName, settingNow } from "./settings.ts";
import { execFileText as run } from "../runtime/face/code.ts";
import { sessionToken } from "../runtime/face/network.ts";
import { workerExecArgv } from "../runtime/face/hosts.ts";
import { hold, release } from "../runtime/face/procs.ts";
import { attachToWorkers } from "../mesh/workers.ts";
import { Launcher, type LauncherState } from "./launcher.ts";

const ACTIVE = /^(PENDING|CONFIGURING|RUNNING|REQUEUED|RESIZING|SUSPENDED)$/;

/** The job's state as squeue tells it; "" once Slurm has forgotten it; null when squeue could not say. */
function jobState(jobId: string): Promise<string | null> {
  return run("squeue", ["-h", "-j", jobId, "-o", "%T"]).then(
    ({ stdout }) => stdout.trim(),
    (err: Error & { stderr?: string }) => (/invalid job id/i.test(err.stderr ?? "") ? "" : null),
  );
}
const WORKER_MAIN = fileURLToPath(new URL(`./slurm-worker-main${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url));

/** A new directory for one SlurmJob, in FRAY_CLUSTER_DIR/slurm-jobs/: like the cluster's state, every node must see it. */
function newJobDir(): string {
  const parent = join(config.clusterDir, "slurm-jobs");
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(join(parent, "fray-slurm-"));
}

export interface SlurmJobOptions {
  /** Meshes to provision: name → number of nodes. */
  readonly meshes: Readonly<Record<string, number>>;
  readonly partition?: string;
  readonly account?: string;
  /** Port of each worker (its procs listen on ports the OS picks); default 22222. */
  readonly port?: number;
  /** More sbatch options, e.g. ["--time=01:00:00"]. */
  readonly sbatchArgs?: readonly string[];
  /** A directory every node sees; default: a new one in FRAY_CLUSTER_DIR/slurm-jobs/ (under the home directory, which clusters share). */
  readonly jobDir?: string;
  /** How long to wait for the workers to start, in ms; default FRAY_HOSTS_START_TIMEOUT_MS (10 minutes: queues can be slow). */
  readonly startTimeoutMs?: number;
}

export class SlurmJob extends Launcher {
  readonly #options: SlurmJobOptions;
  readonly #dir: string;
  readonly #token = sessionToken(); // this process's token: its meshes and the workers' agree
  #jobIds: string[] = [];

  constructor(options: SlurmJobOptions) {
    super(options.meshes, "nodes");
    this.#options = options;
    this.#dir = options.jobDir ?? newJobDir();
  }

  /** Slurm job ids, once submitted. */
  get jobIds(): readonly string[] {
    return this.#jobIds;
  }

  /** Submits a job per mesh and waits for its workers. */
  protected async provision(): Promise<LauncherState> {
    const { shellQuote } = await import("../cluster/shell-quote.ts"); // loaded on use: every actor module imports `fray/mesh`, which exports this launcher
    // The token reaches the workers as a file only the submitting user can read.
    writeFileSync(join(this.#dir, "token"), this.#token, { mode: 0o600 });
    const result: LauncherState = {};
    for (const [name, nodes] of Object.entries(this.#options.meshes)) {
      const meshDir = join(this.#dir, name);
      mkdirSync(meshDir, { recursive: true });
      const script = join(meshDir, "job.sh");
      const worker = [process.execPath, ...workerExecArgv(), WORKER_MAIN, meshDir, join(this.#dir, "token"), String(this.#options.port ?? 22222)]
        .map(shellQuote)
        .join(" ");
      writeFileSync(script, `#!/bin/bash\n# Fray workers for mesh '${name}': one per node.\nexec srun --ntasks-per-node=1 --kill-on-bad-exit=1 ${worker}\n`, {
        mode: 0o700,
      });
      const args = ["--parsable", `--job-name=fray-${name}`, `--nodes=${nodes}`, "--ntasks-per-node=1", `--output=${join(meshDir, "slurm-%j.out")}`];
      if (this.#options.partition) args.push(`--partition=${this.#options.partition}`);
      if (this.#options.account) args.push(`--account=${this.#options.account}`);
      args.push(...(this.#options.sbatchArgs ?? []), script);
      const { stdout } = await run("sbatch", args).catch((err: Error & { stderr?: string }) => {
        throw new Error(`sbatch failed for mesh '${name}': ${err.stderr?.trim() || err.message}`, { cause: err });
      });
      const jobId = stdout.trim().split(";")[0];
      this.#jobIds.push(jobId);
      const addrs = await this.#workersOf(meshDir, nodes, jobId);
      result[name] = attachToWorkers(addrs, { token: this.#token });
    }
    return result;
  }

  /**
   * Waits until `n` workers wrote their address files; returns the addresses in
   * node order. Rejects, with the end of the job's output, if the job ends first
   * (a worker that cannot listen on its port ends it: srun --kill-on-bad-exit).
   */
  async #workersOf(meshDir: string, n: number, jobId: string): Promise<string[]> {
    const { ms: timeoutMs, bound } = optionOrSetting("startTimeoutMs", this.#options.startTimeoutMs, "hostsStartTimeoutMs");
    const { logCause } = await import("../cluster/replica/failure-message.ts");
    const read = () => readdirSync(meshDir).filter((f) => /^worker-\d+\.json$/.test(f));
    await new Promise<void>((resolve, reject) => {
      const watcher = watch(meshDir, () => check());
      const timer = setTimeout(
        () => finish(new Error(`only ${read().length} of ${n} Slurm workers started within ${timeoutMs} ms (${bound}); see ${meshDir}/slurm-*.out`)),
        timeoutMs,
      );
      // Slurm says nothing when a job ends; ask it now and then.
      const poll = setInterval(() => {
        jobState(jobId).then((state) => {
          if (state === null || ACTIVE.test(state) || read().length >= n) return;
          const out = join(meshDir, `slurm-${jobId}.out`);
          // Slurm writes the output on the node: none here means the job never ran, or its node does not see this directory.
          const said = existsSync(out)
            ? logCause(out).join(" | ")
            : `there is no ${out}: the job never ran, or its node does not see ${this.#dir} ` +
              `(give jobDir, or ${settingName("clusterDir")}, a directory every node sees)`;
          finish(new Error(`Slurm job ${jobId} ended before its ${n} workers started (${read().length} did)${said ? `: ${said}` : ""}; see ${out}`));
        });
      }, 1000);
      const finish = (err?: Error) => {
        watcher.close();
        clearTimeout(timer);
        clearInterval(poll);
        if (err) reject(err);
        else resolve();
      };
      const check = () => {
        if (read().length >= n) finish();
      };
      check();
    });
    return read()
      .map((f) => JSON.parse(readFileSync(join(meshDir, f), "utf8")) as { node: number; addr: string })
      .sort((a, b) => a.node - b.node)
      .map((w) => w.addr);
  }

  /** Cancels the jobs and waits until Slurm no longer lists them (their workers and procs are gone). */
  async kill(): Promise<void> {
    hold();
    try {
      if (!this.#jobIds.length) return;
      const ids = this.#jobIds.join(",");
      const { pollUntil } = await import("../runtime/face/polling.ts");
      await run("scancel", [...this.#jobIds]);
      // Slurm has no event to wait on here: ask about these jobs only, less often as it takes longer (KillWait can be a minute).
      await pollUntil(async () => !(await run("squeue", ["-h", "-j", ids, "-o", "%i"]).catch(() => ({ stdout: "" }))).stdout.trim(), {
        intervalMs: (attempt) => Math.min(200 * 1.5 ** attempt, 2_000),
        deadlineMs: config.scancelTimeoutMs,
        bound: settingNow("scancelTimeoutMs"),
        what: `Slurm to stop listing jobs ${ids} (scancel sent)`,
        hint: `see 'squeue -j ${ids}' and 'scontrol show job ${ids}'`,
      });
    } finally {
      release();
      if (!this.#options.jobDir) rmSync(this.#dir, { recursive: true, force: true });
    }
  }
}
