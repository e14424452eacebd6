// The sbatch script of a Fray job on Slurm: one allocation of n tasks, and one
// `srun` step that starts every replica together (one task each, its rank is
// FRAY_REPLICA_ID). Each task runs the replica loop (replica/script.ts) with
// its own exit record and output file in the shared state directory; a task
// whose replica fails for good counts the replicas failed so far in this run
// and, past maxTaskFailures, writes the stop file and signals the step, so the
// other loops record "stop" and end. A requeue (preemption) starts the script
// again with SLURM_RESTART_COUNT one higher: it records a preemption for each
// replica, then gives up once there were more than maxRetriesPreemption.
import { settingName } from "../settings.ts";
import type { CheckedRequest } from "../job-request.ts";
import { REPLICA_LOOP } from "../replica/script.ts";
import { shellQuote } from "../shell-quote.ts";

/** The files a job keeps in the state directory, named from its Slurm id (the script passes shell variables). */
export const slurmFiles = {
  /** Replica i's exit record (replica loop). */
  exit: (root: string, jobId: string, i: number | string) => `${root}/${jobId}_${i}.exit`,
  /** Replica i's output (srun --output=%j_%t.out). */
  log: (root: string, jobId: string, i: number | string) => `${root}/${jobId}_${i}.out`,
  /** The batch script's own output. */
  batchLog: (root: string, jobId: string) => `${root}/${jobId}.batch.out`,
  /** The stop file: "terminate()" or "replica 1 failed"; every loop of the job stops on it. */
  stop: (root: string, jobId: string) => `${root}/${jobId}.stop`,
  /** Why the batch script gave up after requeues ("was preempted 3 times (maxRetriesPreemption 2)"). */
  preempted: (root: string, jobId: string) => `${root}/${jobId}.preempted`,
};

/** What the stop file says when terminate() wrote it. */
export const TERMINATE_MARK = "terminate()";

/**
 * One srun task: runs the replica loop, waits for it across SIGTERM (the loop records why it
 * ended), and stops the step's other replicas once more than MAX_FAILURES have failed for good.
 *   sh -c TASK fray-task LOOP ROOT MAX_FAILURES RETRIES PROCS CMD ARGS...
 */
const TASK = `loop=$1; root=$2; max_failures=$3; retries=$4; procs=$5; shift 5
job=$SLURM_JOB_ID; i=$SLURM_PROCID; run=\${SLURM_RESTART_COUNT:-0}
export ${settingName("replicaId")}=$i
exit_file="${slurmFiles.exit("$root", "${job}", "$i")}"; stop_file="${slurmFiles.stop("$root", "$job")}"
trap : TERM
/bin/sh -c "$loop" fray-replica "$exit_file" "$retries" -1 "$stop_file" "$procs" "$@"
rc=$?
case "$(tail -n 2 "$exit_file" | tr '\\n' ' ')" in
  "stop "*|*"final 0 ") ;;
  *"final "*)
    mkdir -p "$root/$job.failed" && : > "$root/$job.failed/$run-$i"
    if [ "$(ls "$root/$job.failed" | grep -c "^$run-")" -gt "$max_failures" ]; then
      (set -C; echo "replica $i failed" > "$stop_file") 2>/dev/null
      others=0; j=0
      while [ "$j" -lt "$${settingName("replicaCount")}" ]; do
        [ "$j" != "$i" ] && ! tail -n 1 "${slurmFiles.exit("$root", "${job}", "$j")}" 2>/dev/null | grep -q '^final' && others=1
        j=$((j + 1))
      done
      # Only while others run: a signal to a step with none left makes slurmstepd log "CANCELLED" into this replica's output.
      [ "$others" = 1 ] && { scancel --signal=TERM "$job.$SLURM_STEP_ID"; } 2>/dev/null
    fi ;;
esac
exit "$rc"`;

export interface BatchScriptInput {
  readonly job: CheckedRequest;
  /** The state directory every node sees. */
  readonly root: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** The 0600 file the namespace token is read from at run time (never written into the script Slurm keeps). */
  readonly tokenFile: string;
  readonly command: readonly string[];
  /** srun's per-task resources (--cpus-per-task, --gpus-per-task), the same as the allocation's. */
  readonly stepOptions: readonly string[];
}

export function batchScript({ job, root, cwd, env, tokenFile, command, stepOptions }: BatchScriptInput): string {
  const q = shellQuote;
  const maxPreempt = job.maxRetriesPreemption;
  return [
    "#!/bin/sh",
    `# Fray job ${job.name}: ${job.replicas} replica(s), one srun task each, started together in one allocation.`,
    ...Object.entries(env).map(([k, v]) => `export ${k}=${q(v)}`),
    `${settingName("token")}="$(cat ${q(tokenFile)})" || exit 1`,
    `export ${settingName("token")}`,
    `cd ${q(cwd)} || exit 1`,
    `root=${q(root)}; job=$SLURM_JOB_ID; run=\${SLURM_RESTART_COUNT:-0}`,
    // A requeue is a preemption of every replica: record it, also for a loop killed before it could.
    `if [ "$run" -gt 0 ]; then`,
    `  i=0`,
    `  while [ "$i" -lt ${job.replicas} ]; do`,
    `    f="${slurmFiles.exit("$root", "${job}", "$i")}"; c=$(cat "$f" 2>/dev/null | grep -c '^preempt')`,
    `    while [ "$c" -lt "$run" ]; do printf 'exit - 143\\npreempt -\\n' >> "$f"; c=$((c + 1)); done`,
    `    i=$((i + 1))`,
    `  done`,
    `  if [ "$run" -gt ${maxPreempt} ]; then`,
    `    echo "was preempted $run time(s) (maxRetriesPreemption ${maxPreempt})" > "${slurmFiles.preempted("$root", "$job")}"`,
    `    echo "[fray] preempted $run time(s), more than maxRetriesPreemption ${maxPreempt}: giving up" >&2`,
    `    exit 1`,
    `  fi`,
    `fi`,
    // kill-on-bad-exit and wait off: the tasks decide, through maxTaskFailures, when the others stop.
    [
      "srun",
      `--ntasks=${job.replicas}`,
      ...stepOptions,
      "--kill-on-bad-exit=0",
      "--wait=0",
      `--output="${slurmFiles.log("$root", "%j", "%t")}"`,
      "--open-mode=append",
      "/bin/sh -c",
      q(TASK),
      "fray-task",
      q(REPLICA_LOOP),
      '"$root"',
      String(job.maxTaskFailures),
      String(job.maxRetriesFailure),
      String(job.processesPerTask),
      ...command.map(q),
    ].join(" "),
    "",
  ].join("\n");
}
