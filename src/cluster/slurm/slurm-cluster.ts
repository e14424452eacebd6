// cluster/slurm: the `slurm` backend: the batch script of one gang allocation
// (batch-script.ts), its state from squeue (job-states.ts) and exit records (state.ts), the jobs of a name
// (jobs-named.ts). Uses cluster's
// replica loop and requests, environment/ and the namespace/ service.
//
// The `slurm` backend: a job is one Slurm allocation of one task per replica
// (each task with the request's CPUs, memory and GPUs), all started together by
// one srun step (slurm/batch-script.ts). Each task runs the replica loop, so
// retries and exit codes are recorded next to Slurm's output files in the state
// directory, which must be one every node sees. Status comes from
// `squeue` (one query for all of this cluster's jobs asked about, shared by
// everyone in this process) and the exit records, which outlive Slurm's
// memory of the job (MinJobAge).
import { execFile, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { config, settingName, settingNow } from "../settings.ts";
import { pollUntil } from "../../runtime/face/polling.ts";
import { Cluster, jobInfo, type LaunchedJob } from "../cluster.ts";
import type { ClusterSpec } from "../cluster-spec.ts";
import { JobNotFoundError } from "../errors.ts";
import { readJson, readText, writeJson } from "../job-files.ts";
import type { CheckedRequest } from "../job-request.ts";
import type { RequestFingerprint } from "../request-fingerprint.ts";
import type { LogFile } from "../log-tail.ts";
import { NamespaceService } from "../namespace/service.ts";
import { prepareEnvironment } from "../environment/job-environment.ts";
import { replicaCommand } from "../replica/command.ts";
import { batchScript, slurmFiles, TERMINATE_MARK } from "./batch-script.ts";
import { SlurmJobStates } from "./job-states.ts";
import { liveJobsNamed } from "./jobs-named.ts";
import { replicaStatus, slurmJobLive, slurmJobPending, type SlurmJobState } from "./state.ts";
import { TERMINAL, type JobId, type JobInfo } from "../types.ts";

const run = promisify(execFile);
const MiB = 2 ** 20;
/** Pending reasons that mean the request exceeds every node or the partition's limits. */
const NEVER_RUNS = new Set(["PartitionConfig", "BadConstraints", "PartitionNodeLimit"]);

interface SlurmJobRecord extends LaunchedJob {
  readonly replicas: number;
  readonly createdAt: number;
  /** Where its processes write their reports for the dashboard (absent in records of older versions). */
  readonly reportDir?: string;
}

export class SlurmCluster extends Cluster {
  readonly spec: string;
  readonly #root: string;
  readonly #parsed: ClusterSpec;
  protected override monitorIntervalMs = 250;
  protected readonly namespaceService: NamespaceService;
  protected readonly backend = "slurm";
  readonly #states: SlurmJobStates;

  constructor(spec: string, parsed: ClusterSpec) {
    super();
    this.spec = spec;
    this.#parsed = parsed;
    this.#root = join(parsed.dir, "slurm");
    this.namespaceService = new NamespaceService(this.#root, spec);
    this.#states = SlurmJobStates.of(this.#root);
  }

  protected get stateDir(): string {
    return this.#root;
  }

  protected launchedRequest(jobId: JobId): RequestFingerprint | undefined {
    return this.#job(jobId).asked;
  }

  /** The allocation's options for `job` (sbatch), and each task's (srun, which does not inherit them all). */
  #options(job: CheckedRequest): { sbatch: string[]; step: string[] } {
    if (job.device.kind === "tpu")
      throw new Error(`job ${job.name} asks for TPUs (${job.device.variant}); Slurm clusters have none here: request a gpu or cpu device`);
    const cpus = Math.max(1, Math.ceil(job.cpu));
    const step = [`--cpus-per-task=${cpus}`];
    if (job.device.kind === "gpu" && job.deviceCount > 0) {
      // per_task: each task sees its own GPUs in CUDA_VISIBLE_DEVICES (without it, tasks sharing a node see none).
      step.push(`--gpus-per-task=${job.device.variant ? `${job.device.variant}:` : ""}${job.deviceCount}`, `--gpu-bind=per_task:${job.deviceCount}`);
    }
    // Memory per CPU: a task's share is its CPUs' (Slurm has no per-task memory option).
    const sbatch = [
      `--job-name=${job.name}`,
      `--ntasks=${job.replicas}`,
      ...step.filter((o) => !o.startsWith("--gpu-bind")),
      `--mem-per-cpu=${Math.max(1, Math.ceil(job.ramBytes / MiB / cpus))}M`,
    ];
    if (job.diskGiven) sbatch.push(`--tmp=${Math.max(1, Math.ceil(job.diskBytes / MiB))}M`);
    if (job.priority !== 0) sbatch.push(`--nice=${-job.priority}`);
    if (this.#parsed.partition) sbatch.push(`--partition=${this.#parsed.partition}`);
    if (this.#parsed.account) sbatch.push(`--account=${this.#parsed.account}`);
    sbatch.push(job.preemptible ? "--requeue" : "--no-requeue");
    return { sbatch, step };
  }

  protected async submit(job: CheckedRequest, asked: RequestFingerprint): Promise<JobId> {
    const options = this.#options(job);
    mkdirSync(this.#root, { recursive: true });
    const launchId = randomUUID();
    const argsFile = join(this.#root, `args-${launchId}.bin`);
    const jobDir = join(this.#root, `launch-${launchId}`);
    const { cwd, env: jobEnv, command } = await prepareEnvironment(job, await replicaCommand(job, argsFile), { jobDir, clusterRoot: this.#root });
    const namespace = await this.namespace(); // once the request is known to be good: a refused one starts nothing
    const reportDir = join(this.#root, "reports", launchId);
    mkdirSync(reportDir, { recursive: true });
    const env = {
      ...jobEnv,
      [settingName("reportDir")]: reportDir,
      [settingName("clusterSpec")]: this.spec,
      [settingName("replicaCount")]: String(job.replicas),
      [settingName("namespace")]: namespace.address,
    };
    const script = batchScript({ job, root: this.#root, cwd, env, tokenFile: this.namespaceService.tokenFile, command, stepOptions: options.step });
    const args = ["--parsable", `--output=${slurmFiles.batchLog(this.#root, "%j")}`, "--open-mode=append", ...options.sbatch];
    const jobId = (
      await sbatch(args, script, job.name).catch((err: unknown) => {
        rmSync(argsFile, { force: true });
        rmSync(reportDir, { recursive: true, force: true });
        throw err;
      })
    ).split(";")[0];
    // sbatch accepts some requests no node can ever hold (too many CPUs) and leaves them pending forever.
    this.#states.changed();
    const never = (await this.#states.states([jobId])).find((e) => NEVER_RUNS.has(e.reason));
    if (never) {
      await run("scancel", [jobId]).catch(() => {});
      rmSync(argsFile, { force: true });
      rmSync(reportDir, { recursive: true, force: true });
      throw new Error(
        `Slurm cannot ever run job ${job.name} (Reason=${never.reason}): no node in the partition has ${options.sbatch.slice(1).join(" ")}; ask for less`,
      );
    }
    // Slurm places the job by --tmp but does not limit what it writes.
    const notEnforced = job.diskGiven ? ["disk: Slurm places the job on nodes with that much TmpDisk (--tmp) but does not limit its use"] : [];
    writeJson(join(this.#root, `${jobId}.json`), {
      jobId,
      name: job.name,
      replicas: job.replicas,
      createdAt: Date.now(),
      request: job.request,
      asked,
      notEnforced,
      reportDir,
    } satisfies SlurmJobRecord);
    return jobId;
  }

  // Slurm numbers jobs in submission order: of two launches of one name that raced past the lock (from two hosts),
  // the one whose sbatch came first keeps the name, and the other adopts it (or is refused, if its request differs).
  // Slurm is asked, as it knows the earlier job from its sbatch on, before that launch has recorded it here; its
  // record is waited for (that launch writes it next, or cancels the job if Slurm can never run it).
  protected override async earlierLaunch(name: string, jobId: JobId): Promise<JobInfo | undefined> {
    let unrecorded = "";
    const earliest = async (): Promise<{ info?: JobInfo } | undefined> => {
      for (const id of (await liveJobsNamed(this.#root, name)).filter((id) => Number(id) < Number(jobId))) {
        if (!existsSync(join(this.#root, `${id}.json`))) {
          unrecorded = id;
          return undefined; // not yet recorded: asked again
        }
        const info = await this.poll(id);
        if (!TERMINAL.has(info.status)) return { info };
      }
      return {};
    };
    try {
      return (
        await pollUntil(earliest, {
          intervalMs: 100,
          deadlineMs: config.slurmRivalRecordTimeoutMs,
          bound: settingNow("slurmRivalRecordTimeoutMs"),
          what: () => `the launch that submitted Slurm job ${unrecorded} (also named ${name}, before this launch's job ${jobId}) to record it in ${this.#root}`,
          hint: () => `this launch's job is cancelled; if no launch of ${name} runs on another host, 'scancel ${unrecorded}' and submit again`,
        })
      ).info;
    } catch (err) {
      await this.withdraw(jobId);
      throw err;
    }
  }

  protected override async withdraw(jobId: JobId): Promise<void> {
    const job = this.#job(jobId);
    await run("scancel", [jobId]).catch(() => {}); // it never ran its entrypoint, or ends now
    rmSync(join(this.#root, `${jobId}.json`), { force: true });
    if (job.reportDir) rmSync(job.reportDir, { recursive: true, force: true });
  }

  async poll(jobId: JobId): Promise<JobInfo> {
    const job = this.#job(jobId);
    return this.#info(job, await this.#slurmStates([job]));
  }

  async listJobs(): Promise<JobInfo[]> {
    let files: string[];
    try {
      files = readdirSync(this.#root).filter((f) => /^\d+\.json$/.test(f));
    } catch {
      return [];
    }
    const jobs = files.flatMap((f) => readJson<SlurmJobRecord>(join(this.#root, f)) ?? []).sort((a, b) => a.createdAt - b.createdAt);
    const states = jobs.length ? await this.#slurmStates(jobs) : [];
    return jobs.map((job) => this.#info(job, states));
  }

  async terminate(jobId: JobId): Promise<void> {
    const job = this.#job(jobId);
    if (TERMINAL.has((await this.poll(jobId)).status)) return;
    writeStopMark(slurmFiles.stop(this.#root, jobId));
    await run("scancel", [jobId]).catch((err: Error & { stderr?: string }) => {
      throw new Error(`scancel ${jobId} failed: ${err.stderr?.trim() || err.message}`, { cause: err });
    });
    this.#states.changed();
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
    return Array.from({ length: job.replicas }, (_, i) => ({ path: slurmFiles.log(this.#root, jobId, i), prefix: `[replica-${i}] ` }));
  }

  protected reportDir(jobId: JobId): string | null {
    return this.#job(jobId).reportDir ?? null;
  }

  #job(jobId: JobId): SlurmJobRecord {
    const job = typeof jobId === "string" && /^\d+$/.test(jobId) ? readJson<SlurmJobRecord>(join(this.#root, `${jobId}.json`)) : undefined;
    if (!job) throw new JobNotFoundError(jobId, `cluster ${this.spec} (state in ${this.#root})`);
    return job;
  }

  /**
   * Slurm's (shared, maybe older) answers for `jobs`; asked again if one says a job waits while its replicas wrote
   * to their log or exit record since it was asked: it started meanwhile.
   */
  async #slurmStates(jobs: readonly SlurmJobRecord[]): Promise<SlurmJobState[]> {
    const ask = () => this.#states.states(jobs.map((j) => j.jobId));
    const states = await ask();
    const since = this.#states.askedAt;
    const now = Date.now();
    // Not a time ahead of this host's clock (a node's, on a shared file system): the next answer would not be newer, and each look would ask again.
    const wroteSince = (path: string) => {
      const mtime = statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;
      return mtime > since && mtime <= now;
    };
    const started = jobs.some(
      (job) =>
        slurmJobPending(states.find((s) => s.jobId === job.jobId)) &&
        Array.from({ length: job.replicas }, (_, i) => i).some(
          (i) => wroteSince(slurmFiles.log(this.#root, job.jobId, i)) || wroteSince(slurmFiles.exit(this.#root, job.jobId, i)),
        ),
    );
    if (!started) return states;
    this.#states.changed();
    return ask();
  }

  #info(job: SlurmJobRecord, states: readonly SlurmJobState[]): JobInfo {
    const state = states.find((e) => e.jobId === job.jobId);
    const { jobId } = job;
    const optional = (path: string) => (existsSync(path) ? readText(path) : undefined);
    const marks = {
      stop: optional(slurmFiles.stop(this.#root, jobId)),
      preemptedOut: optional(slurmFiles.preempted(this.#root, jobId))?.trim(),
      batchLogPath: slurmFiles.batchLog(this.#root, jobId),
    };
    const tasks = Array.from({ length: job.replicas }, (_, i) =>
      replicaStatus(state, readText(slurmFiles.exit(this.#root, jobId, i)), slurmFiles.log(this.#root, jobId, i), marks),
    );
    const info = jobInfo(job, tasks);
    if (TERMINAL.has(info.status) && !slurmJobLive(state)) this.#states.settle(jobId);
    return info;
  }
}

/** Writes terminate()'s stop mark, unless a failed replica's is there already (it says why the others stopped). */
function writeStopMark(path: string): void {
  try {
    writeFileSync(path, `${TERMINATE_MARK}\n`, { flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
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
