// The `local` backend: each replica is a detached process group on this
// machine, running the replica loop (replica-script.ts). Everything about a
// job is kept in its directory — job.json (pids), replica-i.log,
// replica-i.exit, a `stopped` mark — so any later process can poll, follow
// and stop it, and the job outlives the process that launched it.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { config, settingName, settingNow } from "../runtime/config.ts";
import { pollUntil, PollTimeoutError } from "../runtime/poll.ts";
import { Cluster, jobInfo } from "./cluster.ts";
import type { ClusterSpec } from "./cluster-spec.ts";
import { JobNotFoundError } from "./errors.ts";
import { failureMessage } from "./failure-message.ts";
import { readJson, readText, writeJson } from "./job-files.ts";
import type { CheckedRequest } from "./job-request.ts";
import { NamespaceService } from "./namespace-service.ts";
import type { LogFile } from "./log-tail.ts";
import { prepareEnvironment } from "./job-environment.ts";
import { groupAlive, isRunning, signal, startTimeOf } from "./process-group.ts";
import { replicaCommand } from "./replica-command.ts";
import { parseExitRecord, REPLICA_LOOP, type ExitRecord } from "./replica-script.ts";
import type { JobId, JobInfo, TaskStatus } from "./types.ts";

interface LocalJob {
  readonly jobId: JobId;
  readonly name: string;
  readonly createdAt: number;
  /** Each replica's loop process, which leads its process group. */
  readonly replicas: readonly { readonly pid: number; readonly startTime: string }[];
}

export class LocalCluster extends Cluster {
  readonly spec: string;
  readonly #root: string;
  protected readonly namespaceService: NamespaceService;
  protected readonly backend = "local";

  constructor(spec: string, parsed: ClusterSpec) {
    super();
    this.spec = spec;
    this.#root = join(parsed.dir, "local");
    this.namespaceService = new NamespaceService(this.#root, spec);
  }

  protected async submit(job: CheckedRequest): Promise<JobId> {
    const jobId = `${job.name}-${randomBytes(4).toString("hex")}`;
    const dir = join(this.#root, jobId);
    mkdirSync(dir, { recursive: true });
    const prepared = await replicaCommand(job, join(dir, "callable-args.bin"))
      .then((command) => prepareEnvironment(job, command, { jobDir: dir, clusterRoot: this.#root }))
      .catch((err: unknown) => {
        rmSync(dir, { recursive: true, force: true }); // a refused launch leaves nothing behind
        throw err;
      });
    const { command } = prepared;
    const namespace = await this.namespace(); // once the request is known to be good: a refused one starts nothing
    const replicas: { pid: number; startTime: string }[] = [];
    for (let i = 0; i < job.replicas; i++) {
      const log = openSync(join(dir, `replica-${i}.log`), "a");
      try {
        const env: NodeJS.ProcessEnv = { ...process.env, ...prepared.env, [settingName("clusterSpec")]: this.spec, [settingName("replicaId")]: String(i), [settingName("replicaCount")]: String(job.replicas), [settingName("namespace")]: namespace.address, [settingName("token")]: namespace.token };
        delete env.NODE_TEST_CONTEXT; // a job started from a test is not itself a test
        const args = ["-c", REPLICA_LOOP, "fray-replica", join(dir, `replica-${i}.exit`), String(job.maxRetriesFailure), String(job.maxRetriesPreemption), join(dir, "stopped"), String(job.processesPerTask), ...command];
        // detached: its own session and process group, so it outlives us and terminate() reaches all it starts.
        const child = spawn("/bin/sh", args, { cwd: prepared.cwd, detached: true, stdio: ["ignore", log, log], env });
        child.unref();
        replicas.push({ pid: child.pid ?? -1, startTime: startTimeOf(child.pid ?? -1) });
      } finally {
        closeSync(log);
      }
    }
    writeJson(join(dir, "job.json"), { jobId, name: job.name, createdAt: Date.now(), replicas } satisfies LocalJob);
    return jobId;
  }

  async poll(jobId: JobId): Promise<JobInfo> {
    return this.#info(this.#job(jobId));
  }

  async listJobs(): Promise<JobInfo[]> {
    let ids: string[];
    try {
      ids = readdirSync(this.#root);
    } catch {
      return [];
    }
    const jobs = ids.flatMap((id) => readJson<LocalJob>(join(this.#root, id, "job.json")) ?? []);
    return jobs.sort((a, b) => a.createdAt - b.createdAt).map((job) => this.#info(job));
  }

  async terminate(jobId: JobId): Promise<void> {
    const job = this.#job(jobId);
    const live = () => job.replicas.filter((r, i) => this.#state(r, i, job.jobId).alive);
    if (live().length === 0) return;
    writeFileSync(join(this.#root, jobId, "stopped"), `${Date.now()}\n`);
    for (const r of live()) signal(-r.pid, "SIGTERM");
    const gone = () => live().length === 0;
    const wait = (what: string) => ({ intervalMs: 20, deadlineMs: config.terminateGraceMs, bound: settingNow("terminateGraceMs"), what: () => `${what} (pids ${live().map((r) => r.pid).join(", ")} still run)` });
    await pollUntil(gone, wait(`the replicas of job ${jobId} to exit after SIGTERM`)).catch((err: unknown) => {
      if (!(err instanceof PollTimeoutError)) throw err; // the grace is over: SIGKILL
    });
    for (const r of live()) signal(-r.pid, "SIGKILL");
    await pollUntil(gone, wait(`the replicas of job ${jobId} to exit after SIGKILL`));
  }

  protected async logFiles(jobId: JobId): Promise<LogFile[]> {
    const job = this.#job(jobId);
    return job.replicas.map((_, i) => ({ path: join(this.#root, jobId, `replica-${i}.log`), prefix: `[replica-${i}] ` }));
  }

  #job(jobId: JobId): LocalJob {
    const job = typeof jobId === "string" && !jobId.includes("/") ? readJson<LocalJob>(join(this.#root, jobId, "job.json")) : undefined;
    if (!job) throw new JobNotFoundError(jobId, `cluster ${this.spec} (state in ${this.#root})`);
    return job;
  }

  /** How the replica ended (its exit record) and whether its loop, or anything it started, still runs. */
  #state(r: LocalJob["replicas"][number], i: number, jobId: JobId): { alive: boolean; exit: ExitRecord } {
    const loopRunning = isRunning(r.pid, r.startTime);
    // Read after the check: a loop that ends writes its record first.
    const exit = parseExitRecord(readText(join(this.#root, jobId, `replica-${i}.exit`)));
    // With the loop gone, a command that ignored SIGTERM may still run in its group, unless the loop finished cleanly.
    return { exit, alive: loopRunning || (exit.finalCode === undefined && groupAlive(r.pid)) };
  }

  #info(job: LocalJob): JobInfo {
    const dir = join(this.#root, job.jobId);
    const stopped = existsSync(join(dir, "stopped"));
    const tasks = job.replicas.map((r, i): TaskStatus => {
      const { alive, exit } = this.#state(r, i, job.jobId);
      const counts = { ...(exit.failures > 0 && { failures: exit.failures }), ...(exit.preemptions > 0 && { preemptions: exit.preemptions }) };
      if (exit.finalCode === 0) return { status: "succeeded", ...counts };
      if (alive) return { status: "running", ...counts };
      if (stopped) return { status: "stopped", errorMessage: "was stopped by terminate()", ...counts };
      if (exit.finalCode !== undefined) return { status: "failed", errorMessage: failureMessage(exit.finalCode, exit, join(dir, `replica-${i}.log`)), ...counts };
      return { status: "failed", errorMessage: "ended without an exit record (its process was killed)", ...counts };
    });
    return jobInfo(job.jobId, job.name, tasks);
  }
}
