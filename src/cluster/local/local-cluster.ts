// cluster/local: the `local` backend: capacity, admission, allocation and enforcement
// (CPU pinning, memory limits, GPUs) on this machine, a supervisor per job, and job records.
// Uses cluster's replica loop and requests, environment/ and the namespace/ service.
//
// The `local` backend: jobs run on this machine, scheduled on its cores, memory
// and GPUs (local/capacity.ts; the spec's cpu/ram/gpu replace them). Launch
// checks the request could ever fit, writes the job's record, starts the
// replicas at once if they are admitted now (free resources, nobody ahead),
// and starts the job's supervisor (local/supervisor.ts), one detached process
// per job, which otherwise waits for admission and starts them together under
// their limits, and in either case watches them. Everything about a job is kept in its directory (local/job-record.ts),
// so any later process can poll, follow and stop it, and the job outlives the
// process that launched it.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { config, settingName, settingNow } from "../settings.ts";
import { workerExecArgv } from "../../runtime/face/hosts.ts";
import { PollTimeoutError, pollUntil } from "../../runtime/face/polling.ts";
import { Cluster } from "../cluster.ts";
import type { ClusterSpec } from "../cluster-spec.ts";
import { JobNotFoundError } from "../errors.ts";
import { readJson, writeJson } from "../job-files.ts";
import type { CheckedRequest } from "../job-request.ts";
import type { RequestFingerprint } from "../request-fingerprint.ts";
import { prepareEnvironment } from "../environment/job-environment.ts";
import { nextSeq, tryAdmit, withAdmissionLock } from "./admission.ts";
import { checkFits, type Need } from "./allocation.ts";
import { localCapacity, type Capacity } from "./capacity.ts";
import { enforcementPlan } from "./enforcement.ts";
import { jobFiles, type LocalJobRecord, type ProcessRecord } from "./job-record.ts";
import { liveProcesses, localJobInfo } from "./job-status.ts";
import { startReplicas } from "./supervisor.ts";
import type { LogFile } from "../log-tail.ts";
import { NamespaceService } from "../namespace/service.ts";
import { signal, startTimeOf } from "../process-group.ts";
import { replicaCommand } from "../replica/command.ts";
import type { JobId, JobInfo } from "../types.ts";

const SUPERVISOR = fileURLToPath(new URL(`./job-main${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url));

export class LocalCluster extends Cluster {
  readonly spec: string;
  readonly #root: string;
  readonly #overrides: ClusterSpec["capacity"];
  #capacity: Capacity | undefined;
  protected readonly namespaceService: NamespaceService;
  protected readonly backend = "local";

  constructor(spec: string, parsed: ClusterSpec) {
    super();
    this.spec = spec;
    this.#root = join(parsed.dir, "local");
    this.#overrides = parsed.capacity;
    this.namespaceService = new NamespaceService(this.#root, spec);
  }

  protected get stateDir(): string {
    return this.#root;
  }

  protected launchedRequest(jobId: JobId): RequestFingerprint | undefined {
    return this.#job(jobId).asked;
  }

  /** What this cluster schedules on: the machine's cores, memory and GPUs, or the spec's. */
  get capacity(): Capacity {
    return (this.#capacity ??= localCapacity(this.#overrides));
  }

  protected async submit(job: CheckedRequest, asked: RequestFingerprint): Promise<JobId> {
    if (job.device.kind === "tpu" && job.deviceCount > 0)
      throw new RangeError(`job ${job.name}: the local cluster has no TPUs; run it on a cluster that has them, or remove resources.device`);
    const need: Need = { replicas: job.replicas, cpu: job.cpu, ramBytes: job.ramBytes, gpus: job.device.kind === "gpu" ? job.deviceCount : 0 };
    checkFits(job.name, need, this.capacity); // before anything is made: a refused launch leaves nothing behind
    const jobId = `${job.name}-${randomBytes(4).toString("hex")}`;
    const dir = join(this.#root, jobId);
    const files = jobFiles(dir);
    mkdirSync(files.reports, { recursive: true });
    const prepared = await replicaCommand(job, join(dir, "callable-args.bin"))
      .then((command) => prepareEnvironment(job, command, { jobDir: dir, clusterRoot: this.#root }))
      .catch((err: unknown) => {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      });
    const namespace = await this.namespace(); // once the request is known to be good: a refused one starts nothing
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...prepared.env,
      [settingName("clusterSpec")]: this.spec,
      [settingName("replicaCount")]: String(job.replicas),
      [settingName("namespace")]: namespace.address,
      [settingName("token")]: namespace.token,
      [settingName("reportDir")]: files.reports,
    };
    delete env.NODE_TEST_CONTEXT; // a job started from a test is not itself a test
    const run = {
      cwd: prepared.cwd,
      command: prepared.command,
      maxRetriesFailure: job.maxRetriesFailure,
      maxRetriesPreemption: job.maxRetriesPreemption,
      processesPerTask: job.processesPerTask,
      maxTaskFailures: job.maxTaskFailures,
    };
    const plan = enforcementPlan(job);
    const record = await withAdmissionLock(this.#root, () => {
      const record: LocalJobRecord = {
        jobId,
        name: job.name,
        createdAt: Date.now(),
        seq: nextSeq(this.#root),
        priority: job.priority,
        request: job.request,
        asked,
        need,
        capacity: this.capacity,
        plan,
        run,
      };
      writeJson(files.job, record);
      writeJson(files.launcher, { pid: process.pid, startTime: startTimeOf(process.pid) } satisfies ProcessRecord); // its place, until its supervisor runs
      return record;
    });
    // Free resources and nobody ahead: start the replicas now rather than after the supervisor's own start (~100 ms).
    const admitted = await tryAdmit(this.#root, record);
    if ("grant" in admitted) startReplicas(record, env as Record<string, string>, admitted.grant, files);
    else {
      writeFileSync(files.waiting, admitted.waiting);
      writeFileSync(files.env, JSON.stringify(env), { mode: 0o600 }); // for the supervisor, which starts them once admitted
    }
    const log = openSync(files.supervisorLog, "a");
    try {
      // detached: its own session, so the job outlives whoever launched it.
      const child = spawn(process.execPath, [...workerExecArgv(), SUPERVISOR, dir], {
        detached: true,
        stdio: ["ignore", log, log],
        env: { ...process.env, NODE_TEST_CONTEXT: undefined },
      });
      child.unref();
      const pid = child.pid ?? -1;
      // The supervisor writes the same record as it starts; written here too, so the job is in the queue when launch returns.
      writeJson(files.supervisor, { pid, startTime: startTimeOf(pid) } satisfies ProcessRecord);
    } finally {
      closeSync(log);
    }
    return jobId;
  }

  async poll(jobId: JobId): Promise<JobInfo> {
    return localJobInfo(join(this.#root, jobId), this.#job(jobId));
  }

  async listJobs(): Promise<JobInfo[]> {
    let ids: string[];
    try {
      ids = readdirSync(this.#root);
    } catch {
      return [];
    }
    const jobs = ids.flatMap((id) => readJson<LocalJobRecord>(jobFiles(join(this.#root, id)).job) ?? []);
    return jobs.sort((a, b) => a.seq - b.seq).map((job) => localJobInfo(join(this.#root, job.jobId), job));
  }

  async terminate(jobId: JobId): Promise<void> {
    this.#job(jobId); // throws JobNotFoundError if this cluster has no such job
    const dir = join(this.#root, jobId);
    const files = jobFiles(dir);
    const live = () => {
      const { supervisor, replicas } = liveProcesses(dir);
      return { pids: [...(supervisor ? [supervisor.pid] : []), ...replicas.map((r) => r.pid)], replicas, supervisor };
    };
    const now = live();
    if (now.pids.length === 0) return;
    writeFileSync(files.stopped, `${Date.now()}\n`);
    writeFileSync(files.halt, `${Date.now()}\n`); // the replica loops' stop file: this SIGTERM is no preemption
    if (now.supervisor) signal(now.supervisor.pid, "SIGTERM");
    for (const r of now.replicas) signal(-r.pid, "SIGTERM");
    const gone = () => live().pids.length === 0;
    const wait = (what: string) => ({
      intervalMs: 20,
      deadlineMs: config.terminateGraceMs,
      bound: settingNow("terminateGraceMs"),
      what: () => `${what} (pids ${live().pids.join(", ")} still run)`,
    });
    await pollUntil(gone, wait(`the replicas of job ${jobId} to exit after SIGTERM`)).catch((err: unknown) => {
      if (!(err instanceof PollTimeoutError)) throw err; // the grace is over: SIGKILL
    });
    const left = live();
    for (const r of left.replicas) signal(-r.pid, "SIGKILL");
    if (left.supervisor) signal(left.supervisor.pid, "SIGKILL");
    await pollUntil(gone, wait(`the replicas of job ${jobId} to exit after SIGKILL`));
  }

  protected async logFiles(jobId: JobId): Promise<LogFile[]> {
    const job = this.#job(jobId);
    const files = jobFiles(join(this.#root, jobId));
    return Array.from({ length: job.need.replicas }, (_, i) => ({ path: files.log(i), prefix: `[replica-${i}] ` }));
  }

  protected reportDir(jobId: JobId): string {
    this.#job(jobId);
    return jobFiles(join(this.#root, jobId)).reports;
  }

  #job(jobId: JobId): LocalJobRecord {
    const job = typeof jobId === "string" && !jobId.includes("/") ? readJson<LocalJobRecord>(jobFiles(join(this.#root, jobId)).job) : undefined;
    if (!job) throw new JobNotFoundError(jobId, `cluster ${this.spec} (state in ${this.#root})`);
    return job;
  }
}
