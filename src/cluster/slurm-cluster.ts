// The `slurm` backend: a job is one sbatch job array, one element per replica
// (each with the request's CPUs, memory and GPUs), or a plain job for one replica. The batch script runs the
// replica loop, so retries and exit codes are recorded next to Slurm's output
// files in the state directory, which must be one every node sees.
// Status comes from `scontrol show job`, and from the exit records once Slurm
// has forgotten the job (MinJobAge).
import { execFile, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { config, settingName, settingNow } from "../runtime/config.ts";
import { pollUntil } from "../runtime/poll.ts";
import { Cluster, jobInfo } from "./cluster.ts";
import type { ClusterSpec } from "./cluster-spec.ts";
import { JobNotFoundError } from "./errors.ts";
import { readJson, readText, writeJson } from "./job-files.ts";
import type { CheckedRequest } from "./job-request.ts";
import type { LogFile } from "./log-tail.ts";
import { NamespaceService } from "./namespace-service.ts";
import { prepareEnvironment } from "./job-environment.ts";
import { replicaCommand } from "./replica-command.ts";
import { parseExitRecord, REPLICA_LOOP } from "./replica-script.ts";
import { shellQuote } from "./shell-quote.ts";
import { parseScontrol, taskFromExitRecord, taskFromSlurm, type SlurmElement } from "./slurm-state.ts";
import { TERMINAL, type JobId, type JobInfo } from "./types.ts";

const run = promisify(execFile);
const MiB = 2 ** 20;
/** Pending reasons that mean the request exceeds every node or the partition's limits. */
const NEVER_RUNS = new Set(["PartitionConfig", "BadConstraints", "PartitionNodeLimit"]);

interface SlurmJobRecord {
  readonly jobId: JobId;
  readonly name: string;
  readonly replicas: number;
  readonly createdAt: number;
}

export class SlurmCluster extends Cluster {
  readonly spec: string;
  readonly #root: string;
  readonly #parsed: ClusterSpec;
  protected override monitorIntervalMs = 250;
  protected readonly namespaceService: NamespaceService;
  protected readonly backend = "slurm";

  constructor(spec: string, parsed: ClusterSpec) {
    super();
    this.spec = spec;
    this.#parsed = parsed;
    this.#root = join(parsed.dir, "slurm");
    this.namespaceService = new NamespaceService(this.#root, spec);
  }

  /** The sbatch options for `job` (besides output and array, which launch adds). */
  #sbatchOptions(job: CheckedRequest): string[] {
    if (job.device.kind === "tpu") throw new Error(`job ${job.name} asks for TPUs (${job.device.variant}); Slurm clusters have none here: request a gpu or cpu device`);
    const options = [`--job-name=${job.name}`, `--cpus-per-task=${Math.max(1, Math.ceil(job.cpu))}`, `--mem=${Math.max(1, Math.ceil(job.ramBytes / MiB))}M`];
    if (job.device.kind === "gpu" && job.deviceCount > 0) options.push(`--gres=gpu:${job.device.variant ? `${job.device.variant}:` : ""}${job.deviceCount}`);
    if (this.#parsed.partition) options.push(`--partition=${this.#parsed.partition}`);
    if (this.#parsed.account) options.push(`--account=${this.#parsed.account}`);
    options.push(job.preemptible ? "--requeue" : "--no-requeue");
    return options;
  }

  protected async submit(job: CheckedRequest): Promise<JobId> {
    const options = this.#sbatchOptions(job);
    mkdirSync(this.#root, { recursive: true });
    const launchId = randomUUID();
    const argsFile = join(this.#root, `args-${launchId}.bin`);
    const jobDir = join(this.#root, `launch-${launchId}`);
    const { cwd, env: jobEnv, command } = await prepareEnvironment(job, await replicaCommand(job, argsFile), { jobDir, clusterRoot: this.#root });
    const namespace = await this.namespace(); // once the request is known to be good: a refused one starts nothing
    const env = { ...jobEnv, [settingName("clusterSpec")]: this.spec, [settingName("replicaCount")]: String(job.replicas), [settingName("namespace")]: namespace.address };
    const script = [
      "#!/bin/sh",
      `# Fray job ${job.name}: one array element per replica.`,
      ...Object.entries(env).map(([k, v]) => `export ${k}=${shellQuote(v)}`),
      `export ${settingName("replicaId")}="\${SLURM_ARRAY_TASK_ID:-0}"`,
      // The token from its 0600 file in the shared state directory: never in the script Slurm keeps.
      `${settingName("token")}="$(cat ${shellQuote(this.namespaceService.tokenFile)})" || exit 1`,
      `export ${settingName("token")}`,
      `cd ${shellQuote(cwd)} || exit 1`,
      // Preemptions: -1, Slurm requeues the whole job (SLURM_RESTART_COUNT counts them).
      `exec /bin/sh -c ${shellQuote(REPLICA_LOOP)} fray-replica ${shellQuote(this.#root)}/"\${SLURM_ARRAY_JOB_ID:-$SLURM_JOB_ID}_$${settingName("replicaId")}".exit ${job.maxRetriesFailure} -1 ${shellQuote(this.#root)}/"\${SLURM_ARRAY_JOB_ID:-$SLURM_JOB_ID}".cancelled ${job.processesPerTask} ${command.map(shellQuote).join(" ")}`,
      "",
    ].join("\n");
    // One replica is a plain job: Slurm starts those at submission, arrays only at its next scheduling pass.
    const shape = job.replicas === 1 ? [`--output=${join(this.#root, "%j_0.out")}`] : [`--array=0-${job.replicas - 1}`, `--output=${join(this.#root, "%A_%a.out")}`];
    const args = ["--parsable", ...shape, "--open-mode=append", ...options];
    const jobId = (
      await sbatch(args, script, job.name).catch((err: unknown) => {
        rmSync(argsFile, { force: true });
        throw err;
      })
    ).split(";")[0];
    // sbatch accepts some requests no node can ever hold (too many CPUs) and leaves them pending forever.
    const never = (await scontrol(jobId)).find((e) => NEVER_RUNS.has(e.reason));
    if (never) {
      await run("scancel", [jobId]).catch(() => {});
      rmSync(argsFile, { force: true });
      throw new Error(`Slurm cannot ever run job ${job.name} (Reason=${never.reason}): no node in the partition has ${options.slice(1).join(" ")}; ask for less`);
    }
    writeJson(join(this.#root, `${jobId}.json`), { jobId, name: job.name, replicas: job.replicas, createdAt: Date.now() } satisfies SlurmJobRecord);
    return jobId;
  }

  async poll(jobId: JobId): Promise<JobInfo> {
    const job = this.#job(jobId);
    return this.#info(job, await scontrol(jobId));
  }

  async listJobs(): Promise<JobInfo[]> {
    let files: string[];
    try {
      files = readdirSync(this.#root).filter((f) => /^\d+\.json$/.test(f));
    } catch {
      return [];
    }
    const jobs = files.flatMap((f) => readJson<SlurmJobRecord>(join(this.#root, f)) ?? []).sort((a, b) => a.createdAt - b.createdAt);
    const elements = jobs.length ? await scontrol() : [];
    return jobs.map((job) => this.#info(job, elements));
  }

  async terminate(jobId: JobId): Promise<void> {
    const job = this.#job(jobId);
    if (TERMINAL.has((await this.poll(jobId)).status)) return;
    writeFileSync(join(this.#root, `${jobId}.cancelled`), `${Date.now()}\n`);
    await run("scancel", [jobId]).catch((err: Error & { stderr?: string }) => {
      throw new Error(`scancel ${jobId} failed: ${err.stderr?.trim() || err.message}`, { cause: err });
    });
    // Slurm signals the processes (SIGTERM, then SIGKILL after its KillWait) and reports CANCELLED.
    let status = "";
    await pollUntil(async () => TERMINAL.has((status = (await this.poll(job.jobId)).status)), {
      intervalMs: 100,
      deadlineMs: config.scancelTimeoutMs,
      bound: settingNow("scancelTimeoutMs"),
      what: () => `Slurm to end job ${jobId} (scancel sent; it is still ${status})`,
      hint: `see 'scontrol show job ${jobId}'`,
    });
  }

  protected async logFiles(jobId: JobId): Promise<LogFile[]> {
    const job = this.#job(jobId);
    return Array.from({ length: job.replicas }, (_, i) => ({ path: this.#logPath(jobId, i), prefix: `[replica-${i}] ` }));
  }

  /** Replica i's output (sbatch --output). */
  #logPath(jobId: JobId, i: number): string {
    return join(this.#root, `${jobId}_${i}.out`);
  }

  #job(jobId: JobId): SlurmJobRecord {
    const job = typeof jobId === "string" && /^\d+$/.test(jobId) ? readJson<SlurmJobRecord>(join(this.#root, `${jobId}.json`)) : undefined;
    if (!job) throw new JobNotFoundError(jobId, `cluster ${this.spec} (state in ${this.#root})`);
    return job;
  }

  #info(job: SlurmJobRecord, elements: readonly SlurmElement[]): JobInfo {
    const mine = elements.filter((e) => e.jobId === job.jobId);
    const cancelled = existsSync(join(this.#root, `${job.jobId}.cancelled`));
    const tasks = Array.from({ length: job.replicas }, (_, i) => {
      const exit = parseExitRecord(readText(join(this.#root, `${job.jobId}_${i}.exit`)));
      const element = mine.find((e) => e.indices.includes(i));
      const log = this.#logPath(job.jobId, i);
      return element ? taskFromSlurm(element, exit, log) : taskFromExitRecord(exit, cancelled, log);
    });
    return jobInfo(job.jobId, job.name, tasks);
  }
}

/** Submits `script` on stdin; resolves to sbatch's --parsable answer. */
function sbatch(args: string[], script: string, name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("sbatch", args, { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    child.on("error", (e) => reject(new Error(`cannot run sbatch (${e.message}): is Slurm installed and on PATH?`, { cause: e })));
    child.on("close", (code) => {
      if (code === 0) resolve(out.trim());
      else reject(new Error(`Slurm refused job ${name}: ${err.trim().replace(/\n+/g, "; ") || `sbatch exited with code ${code}`} (sbatch ${args.join(" ")})`));
    });
    child.stdin.end(script);
  });
}

/** Slurm's records of one job (all array elements), or of every job; [] for a job it no longer knows. */
async function scontrol(jobId?: JobId): Promise<SlurmElement[]> {
  try {
    const { stdout } = await run("scontrol", ["show", "job", "-o", ...(jobId ? [jobId] : [])]);
    return parseScontrol(stdout);
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? "";
    if (/Invalid job id/i.test(stderr)) return [];
    throw new Error(`scontrol show job ${jobId ?? ""} failed: ${stderr.trim() || (err as Error).message}`, { cause: err });
  }
}
