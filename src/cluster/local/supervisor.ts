// A local job's supervisor: one detached process per job (local/job-main.ts).
// Unless the launcher already started the replicas (admitted at launch), it
// waits for admission (local/admission.ts) and starts every replica's loop at
// once (a gang) under the job's limits — pinned to its cores with taskset,
// CUDA_VISIBLE_DEVICES its GPUs, in a memory cgroup of its own or under
// RLIMIT_DATA — watches them, and once more replicas have failed for good than
// maxTaskFailures stops the others. It lives until every replica has ended:
// its grant is held while it or its replicas live, so a crash frees nothing still in use.
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { config, settingName } from "../settings.ts";
import { announceChange, changeWatcher, tryAdmit } from "./admission.ts";
import type { Grant, ReplicaGrant } from "./allocation.ts";
import { jobFiles, type LocalJobRecord, type ProcessRecord, type ReplicaEnd, type ReplicaRecord } from "./job-record.ts";
import { readJson, readText, writeJson } from "../job-files.ts";
import { makeMemoryCgroup, oomKilled, removeCgroup } from "./memory-limit.ts";
import { groupAlive, isRunning, signal, startTimeOf } from "../process-group.ts";
import { parseExitRecord, REPLICA_LOOP } from "../replica/script.ts";

/** How often a waiting job asks for admission, and how often running replicas are looked at. */
const ADMIT_INTERVAL_MS = 150;
const WATCH_INTERVAL_MS = 100;

// Puts the replica in its cgroup and under its rlimit, then becomes the rest of its argv (the same pid: the group leader).
const ENFORCE = `procs=$1; kb=$2; shift 2
if [ -n "$procs" ]; then echo $$ > "$procs" || exit 125; fi
if [ -n "$kb" ]; then ulimit -d "$kb" || exit 125; fi
exec "$@"`;

interface Replica extends ReplicaRecord {
  /** Resolves when its loop exits (a child of this process's): the watch looks at once rather than at its next interval. */
  readonly exited: Promise<void>;
}

type JobFiles = ReturnType<typeof jobFiles>;

/** Never: replicas the launcher started are not this process's children, so the watch polls them. */
const NOT_OURS = new Promise<void>(() => {});

export async function superviseJob(dir: string): Promise<void> {
  const files = jobFiles(dir);
  const job = readJson<LocalJobRecord>(files.job);
  if (!job) throw new Error(`no job record at ${files.job}`);
  const env = readJson<Record<string, string>>(files.env) ?? {};
  rmSync(files.env, { force: true }); // it may hold secrets: in memory from here on
  writeJson(files.supervisor, { pid: process.pid, startTime: startTimeOf(process.pid) } satisfies ProcessRecord);
  let termed = false;
  process.on("SIGTERM", () => (termed = true)); // from terminate(): its replicas are stopped, then it ends
  const halted = () => termed || existsSync(files.halt);
  try {
    // Replicas the launcher started at once (their resources were free), or those this supervisor starts once admitted.
    let replicas: readonly Replica[] | undefined = readJson<{ replicas: ReplicaRecord[] }>(files.replicas)?.replicas.map((r) => ({ ...r, exited: NOT_OURS }));
    if (!replicas) {
      const grant = await admission(dirname(dir), job, files, halted);
      if (!grant || halted()) return; // stopped while pending
      replicas = startReplicas(job, env, grant, files);
    }
    await watch(job, replicas, files, halted);
  } finally {
    announceChange(dirname(dir)); // its resources, or its place in the queue, are free
  }
}

async function admission(root: string, job: LocalJobRecord, files: JobFiles, halted: () => boolean): Promise<Grant | undefined> {
  const changes = changeWatcher(root);
  try {
    for (;;) {
      if (halted()) return undefined;
      const answer = await tryAdmit(root, job);
      if ("grant" in answer) {
        rmSync(files.waiting, { force: true });
        return answer.grant;
      }
      if (readText(files.waiting) !== answer.waiting) writeFileSync(files.waiting, answer.waiting);
      await changes.next(ADMIT_INTERVAL_MS);
    }
  } finally {
    changes.close();
  }
}

/** Starts every replica of `job` under its grant (a gang: all or none) and records them in replicas.json. */
export function startReplicas(job: LocalJobRecord, env: Record<string, string>, grant: Grant, files: JobFiles): Replica[] {
  const replicas: Replica[] = [];
  try {
    grant.replicas.forEach((g, i) => replicas.push(startReplica(job, env, g, i, files)));
  } catch (err) {
    for (const r of replicas) signal(-r.pid, "SIGKILL");
    throw err;
  }
  writeJson(files.replicas, { replicas: replicas.map(({ pid, startTime, cgroup }) => ({ pid, startTime, ...(cgroup && { cgroup }) })) });
  return replicas;
}

function startReplica(job: LocalJobRecord, env: Record<string, string>, grant: ReplicaGrant, i: number, files: JobFiles): Replica {
  const memory = job.plan.memory;
  const cgroup = memory && memory.kind !== "rlimit" ? makeMemoryCgroup(memory, `fray-${job.jobId}-${i}`, job.need.ramBytes) : undefined;
  const kb = memory?.kind === "rlimit" ? String(Math.ceil(job.need.ramBytes / 1024)) : "";
  const cpus = [...new Set(grant.cores.map((c) => job.capacity.cores[c.core]))].sort((a, b) => a - b).join(",");
  const pin = job.plan.pin && cpus !== "" ? ["taskset", "-c", cpus] : [];
  // A machine's GPUs are hidden from jobs that were not given them.
  const gpus = grant.gpus.length > 0 || job.capacity.gpus > 0 ? { CUDA_VISIBLE_DEVICES: grant.gpus.join(",") } : {};
  const { run } = job;
  const loop = [
    "/bin/sh",
    "-c",
    REPLICA_LOOP,
    "fray-replica",
    files.exit(i),
    String(run.maxRetriesFailure),
    String(run.maxRetriesPreemption),
    files.halt,
    String(run.processesPerTask),
    ...run.command,
  ];
  const log = openSync(files.log(i), "a");
  try {
    // detached: its own session and process group, so terminate() and the supervisor reach all it starts.
    const child = spawn("/bin/sh", ["-c", ENFORCE, "fray-enforce", cgroup ? join(cgroup, "cgroup.procs") : "", kb, ...pin, ...loop], {
      cwd: run.cwd,
      detached: true,
      stdio: ["ignore", log, log],
      env: { ...env, ...gpus, [settingName("replicaId")]: String(i) },
    });
    child.unref(); // a launcher that started it need not wait for it
    const pid = child.pid ?? -1;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()).once("error", () => resolve()));
    return { pid, startTime: startTimeOf(pid), exited, ...(cgroup && { cgroup }) };
  } finally {
    closeSync(log);
  }
}

async function watch(job: LocalJobRecord, replicas: readonly Replica[], files: JobFiles, halted: () => boolean): Promise<void> {
  const ended = new Set<number>();
  const exitSeen = new Set<Replica>();
  const cgroups: string[] = []; // of ended replicas, removed once empty
  let failed = 0;
  let stoppingSince: number | undefined;
  let killed = false;
  const others = () => replicas.filter((_, i) => !ended.has(i));
  while (ended.size < replicas.length) {
    replicas.forEach((r, i) => {
      if (ended.has(i) || isRunning(r.pid, r.startTime)) return;
      const exit = parseExitRecord(readText(files.exit(i)));
      if (exit.finalCode === undefined && groupAlive(r.pid)) return; // its loop was killed; its command still runs
      const memory = job.plan.memory;
      const oom = r.cgroup !== undefined && exit.finalCode !== 0 && memory !== undefined && memory.kind !== "rlimit" && oomKilled(memory.kind, r.cgroup);
      writeJson(files.end(i), (oom ? { oomLimitBytes: job.need.ramBytes } : {}) satisfies ReplicaEnd);
      ended.add(i);
      if (r.cgroup) cgroups.push(r.cgroup);
      if (exit.finalCode === 0 || halted()) return;
      if (++failed > job.run.maxTaskFailures) {
        writeFileSync(files.gangFailed, `${i}\n`); // before halt: whoever sees the others stopped knows why
        writeFileSync(files.halt, `${Date.now()}\n`);
      }
    });
    if (halted() && stoppingSince === undefined) {
      stoppingSince = Date.now();
      for (const r of others()) signal(-r.pid, "SIGTERM");
    }
    if (stoppingSince !== undefined && !killed && Date.now() - stoppingSince > config.terminateGraceMs) {
      killed = true;
      for (const r of others()) signal(-r.pid, "SIGKILL");
    }
    cgroups.splice(0, cgroups.length, ...cgroups.filter((c) => !removeCgroup(c)));
    const exits = replicas.filter((r, i) => !ended.has(i) && !exitSeen.has(r)).map((r) => r.exited.then(() => exitSeen.add(r)));
    if (ended.size < replicas.length) await Promise.race([sleep(WATCH_INTERVAL_MS), ...exits]);
  }
}
