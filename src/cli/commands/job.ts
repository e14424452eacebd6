// `fray job …`: the cluster API from a shell. Every subcommand takes
// --cluster SPEC (default FRAY_CLUSTER_SPEC, else local) and prints a table,
// or JSON with --json.
import { Command, InvalidArgumentError } from "commander";
import { basename } from "node:path";
import { Entrypoint, type JobInfo, type ResourceConfig } from "../../cluster.ts";
import { settingName } from "../settings.ts";
import { clusterSubcommands, print, renderTable, type Common } from "./cluster-subcommand.ts";
import { Progress } from "../progress.ts";

function count(what: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${what} must be a whole number ≥ 0, got ${JSON.stringify(value)}`);
    return n;
  };
}

function integer(what: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n)) throw new InvalidArgumentError(`${what} must be a whole number, got ${JSON.stringify(value)}`);
    return n;
  };
}

function repeated(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function envPair(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf("=");
  if (eq <= 0) throw new InvalidArgumentError(`--env takes KEY=VALUE, got ${JSON.stringify(value)}`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/** "2" or "H100:2" → a GPU device. */
function gpus(value: string): ResourceConfig["device"] {
  const m = /^(?:([^:]+):)?(\d+)$/.exec(value);
  if (!m) throw new InvalidArgumentError(`--gpus takes COUNT or VARIANT:COUNT (e.g. 2 or H100:2), got ${JSON.stringify(value)}`);
  return { kind: "gpu", variant: m[1], count: Number(m[2]) };
}

function table(jobs: readonly JobInfo[]): string {
  return renderTable([
    ["JOB ID", "NAME", "STATUS", "REPLICAS", "REQUEST", "ERROR"],
    ...jobs.map((j) => [j.jobId, j.name, j.status, replicaSummary(j), j.request, j.errorMessage ?? ""]),
  ]);
}

/** "3 running", "2 succeeded, 1 failed". */
function replicaSummary(job: JobInfo): string {
  const counts = new Map<string, number>();
  for (const t of job.tasks) counts.set(t.status, (counts.get(t.status) ?? 0) + 1);
  return [...counts].map(([s, n]) => `${n} ${s}`).join(", ");
}

interface SubmitOptions {
  name?: string;
  cpu?: number;
  ram?: string;
  disk?: string;
  gpus?: ResourceConfig["device"];
  replicas?: number;
  preemptible?: boolean;
  processesPerTask?: number;
  maxRetries?: number;
  maxPreemptions?: number;
  maxTaskFailures?: number;
  priority?: number;
  env?: Record<string, string>;
  workspace?: string;
  npm?: string[];
  setup?: string[];
  adopt: boolean;
}

const { sub, action } = clusterSubcommands("job");

export function jobCommand(): Command {
  const job = new Command("job").description("launch and follow cluster jobs (fray/cluster) on a local machine or Slurm");

  job.addCommand(
    sub("submit", "launch CMD ARGS as a job and print its id (put -- before the command)")
      .argument("<command...>", "the program and its arguments")
      .option("--name <name>", "job name (default: the program's name)")
      .option("--cpu <n>", "CPU cores per replica (default: none reserved: on local the job shares the cores)", count("--cpu"))
      .option("--ram <size>", "memory per replica, e.g. 512m or 4g")
      .option("--gpus <[variant:]count>", "GPUs per replica, e.g. 1 or H100:2", gpus)
      .option("--replicas <n>", `copies of the command, each with its own ${settingName("replicaId")}`, count("--replicas"))
      .option("--disk <size>", "scratch disk per replica, e.g. 10g (Slurm: --tmp)")
      .option("--preemptible", "the scheduler may preempt it (Slurm: --requeue)")
      .option("--processes-per-task <n>", "processes each replica runs, each with FRAY_PROCESS_ID", count("--processes-per-task"))
      .option("--max-retries <n>", "times a failed replica is started again", count("--max-retries"))
      .option("--max-preemptions <n>", "times a preempted replica is started again (default 100)", count("--max-preemptions"))
      .option("--max-task-failures <n>", "replicas that may fail while the others go on (default 0)", count("--max-task-failures"))
      .option("--priority <n>", "higher starts first among pending jobs (default 0)", integer("--priority"))
      .option("--env <KEY=VALUE>", "environment variable for the job (repeatable)", envPair)
      .option("--workspace <dir>", "directory shipped to the job and used as its working directory")
      .option("--npm <spec>", "npm package the job needs, e.g. zod@3 (repeatable; cached per set)", repeated)
      .option("--setup <line>", "shell line run before the command (repeatable, in order)", repeated)
      .option("--no-adopt", "fail if a job of this name is pending or running (default: print its id)")
      .action(
        action(async (cluster, command: string[], o: Common & SubmitOptions) => {
          const [binary, ...args] = command;
          const jobId = await cluster.launch(
            {
              name: o.name ?? basename(binary).replace(/[^A-Za-z0-9._-]/g, "_"),
              entrypoint: Entrypoint.fromBinary(binary, args),
              resources: { cpu: o.cpu, ram: o.ram, disk: o.disk, device: o.gpus, replicas: o.replicas, preemptible: o.preemptible },
              environment: { envVars: o.env, workspace: o.workspace, npmPackages: o.npm, setupScripts: o.setup },
              processesPerTask: o.processesPerTask,
              maxRetriesFailure: o.maxRetries,
              maxRetriesPreemption: o.maxPreemptions,
              maxTaskFailures: o.maxTaskFailures,
              priority: o.priority,
            },
            { adoptExisting: o.adopt },
          );
          print(o.json, { jobId }, jobId);
        }),
      ),
  );

  job.addCommand(
    sub("list", "list the cluster's jobs").action(
      action(async (cluster, o: Common) => {
        const jobs = await cluster.listJobs();
        print(o.json, jobs, table(jobs));
      }),
    ),
  );

  job.addCommand(
    sub("status", "show a job's status")
      .argument("<id>")
      .action(
        action(async (cluster, id: string, o: Common) => {
          const info = await cluster.poll(id);
          print(o.json, info, table([info]));
        }),
      ),
  );

  job.addCommand(
    sub("logs", "print a job's logs, each line prefixed [replica-i]")
      .argument("<id>")
      .option("-f, --follow", "keep printing new lines until the job ends")
      .action(
        action(async (cluster, id: string, o: Common & { follow?: boolean }) => {
          if (o.follow) for await (const line of cluster.monitor(id)) console.log(line);
          else for (const line of await cluster.logs(id)) console.log(line);
        }),
      ),
  );

  job.addCommand(
    sub("wait", "wait for jobs to end (a progress bar on a terminal); exit code 0 only if all succeeded")
      .argument("<ids...>")
      .option("--timeout <seconds>", "give up after this many seconds", count("--timeout"))
      .action(
        action(async (cluster, ids: string[], o: Common & { timeout?: number }) => {
          const progress = new Progress("waiting", ids.length, "jobs ended");
          try {
            // Each job reports as it ends, so the bar moves in finish order.
            const infos = await Promise.all(
              ids.map((id) => cluster.wait(id, { timeout: o.timeout, raiseOnFailure: false }).then((info) => (progress.step(`${id} ${info.status}`), info))),
            );
            progress.stop();
            print(o.json, infos, table(infos));
            if (infos.some((i) => i.status !== "succeeded")) process.exitCode = 1;
          } finally {
            progress.stop();
          }
        }),
      ),
  );

  job.addCommand(
    sub("stop", `stop a job: SIGTERM, then SIGKILL after ${settingName("terminateGraceMs")} (Slurm: scancel)`)
      .argument("<id>")
      .action(
        action(async (cluster, id: string, o: Common) => {
          await cluster.terminate(id);
          const info = await cluster.poll(id);
          print(o.json, info, table([info]));
        }),
      ),
  );
  return job;
}
