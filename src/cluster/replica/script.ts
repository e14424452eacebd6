// The POSIX shell loop every replica runs in, on every backend: it starts the
// command (PROCS copies, each with FRAY_PROCESS_ID and its share of
// CUDA_VISIBLE_DEVICES), appends "exit ATTEMPT CODE" to the exit file after each
// attempt, starts it again up to RETRIES times while it fails, and finally
// appends "final CODE". A SIGTERM that does not come with STOP_FILE (which
// terminate() writes first) is a preemption: "preempt ATTEMPT", and the command
// starts again, up to PREEMPT_RETRIES times apart from failures; with
// PREEMPT_RETRIES -1 the loop leaves without a final record instead, for a
// scheduler that requeues the whole job (Slurm). The file outlives the process
// and the scheduler's memory of it, so any later process can tell how the
// replica ended ("stop" after the exit of an attempt that terminate() ended). The command finds the file in FRAY_REPLICA_EXIT_FILE: a job
// function that throws appends "error JSON" (its error) there before it exits.
//   sh -c REPLICA_LOOP fray-replica EXIT_FILE RETRIES PREEMPT_RETRIES STOP_FILE PROCS CMD ARGS...
import { constants } from "node:os";
import { settingName } from "../settings.ts";

export const REPLICA_LOOP = `exit_file=$1; retries=$2; preempt_retries=$3; stop_file=$4; procs=$5; shift 5
export ${settingName("replicaExitFile")}="$exit_file" ${settingName("processCount")}="$procs"
all_gpus=\${CUDA_VISIBLE_DEVICES:-}
termed=0
trap 'termed=1' TERM
share() { # the GPUs of process $1: an equal slice of the replica's
  [ -n "$all_gpus" ] && [ "$procs" -gt 1 ] || { printf '%s' "$all_gpus"; return; }
  n=$(printf '%s\n' "$all_gpus" | tr ',' '\n' | wc -l); per=$((n / procs))
  printf '%s\n' "$all_gpus" | tr ',' '\n' | sed -n "$(($1 * per + 1)),$((($1 + 1) * per))p" | paste -sd, -
}
reap() { # wait for pid $1 across TERM traps; its exit code
  while :; do
    wait "$1"; c=$?
    if [ "$c" -gt 128 ] && kill -0 "$1" 2>/dev/null; then continue; fi
    return "$c"
  done
}
ended() { # has process $1 exited (a zombie not yet reaped)?
  s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
  [ -z "$s" ] || [ "$s" = Z ]
}
attempt=0; failed=0; preempted=0
while :; do
  termed=0; pids=""; p=0
  while [ "$p" -lt "$procs" ]; do
    if [ -n "$all_gpus" ]; then CUDA_VISIBLE_DEVICES=$(share "$p"); export CUDA_VISIBLE_DEVICES; fi
    ${settingName("processId")}=$p "$@" &
    pids="$pids $!"; p=$((p + 1))
  done
  rc=0; left=$pids
  while [ -n "$left" ]; do # as each process ends (sh has no "wait for any"): the first failure ends the others
    still=""
    for pid in $left; do
      if [ "$procs" -gt 1 ] && ! ended "$pid"; then still="$still $pid"; continue; fi
      reap "$pid"; c=$?
      if [ "$c" -ne 0 ] && [ "$rc" -eq 0 ]; then rc=$c; kill $pids 2>/dev/null; fi
    done
    left=$still
    if [ -n "$left" ]; then sleep 0.1; fi
  done
  echo "exit $attempt $rc" >> "$exit_file"
  attempt=$((attempt + 1))
  [ "$rc" -eq 0 ] && break
  if [ -e "$stop_file" ]; then echo "stop" >> "$exit_file"; break; fi
  if [ "$termed" = 1 ] || [ "$rc" -eq 143 ]; then
    echo "preempt $attempt" >> "$exit_file"
    [ "$preempt_retries" -lt 0 ] && exit "$rc"
    [ "$preempted" -ge "$preempt_retries" ] && break
    preempted=$((preempted + 1))
    echo "[fray] preempted (SIGTERM); starting it again (preemption $preempted of $preempt_retries)" >&2
    continue
  fi
  [ "$failed" -ge "$retries" ] && break
  failed=$((failed + 1))
  echo "[fray] exited with code $rc; starting it again (retry $failed of $retries)" >&2
done
echo "final $rc" >> "$exit_file"
exit "$rc"`;

export interface ExitRecord {
  /** Attempts made so far. */
  readonly attempts: number;
  /** Attempts that failed, not counting preemptions. */
  readonly failures: number;
  /** Attempts ended by a preemption. */
  readonly preemptions: number;
  /** The last attempt's exit code. */
  readonly lastCode?: number;
  /** The replica's exit code once it has given up or succeeded. */
  readonly finalCode?: number;
  /** What the last attempt reported as its error ("RangeError: no convergence"), if it did. */
  readonly error?: string;
}

/** The line a failing command appends to its exit file to say why. */
export function errorLine(error: string): string {
  return `error ${JSON.stringify(error)}\n`;
}

export function parseExitRecord(text: string): ExitRecord {
  let attempts = 0;
  let failures = 0;
  let preemptions = 0;
  let lastCode: number | undefined;
  let finalCode: number | undefined;
  let error: string | undefined;
  let reported: string | undefined; // by the attempt still running, until its exit line
  for (const line of text.split("\n")) {
    const [kind, a, b] = line.trim().split(" ");
    if (kind === "exit") {
      attempts++;
      lastCode = Number(b);
      if (lastCode !== 0) failures++;
      error = reported;
      reported = undefined;
      finalCode = undefined; // a requeued replica starts over after its last run's end
    } else if (kind === "preempt" || kind === "stop") {
      if (kind === "preempt") preemptions++;
      failures--; // its exit was counted as a failure
    } else if (kind === "final") finalCode = Number(a);
    else if (kind === "error") reported = parseError(line.trim().slice("error ".length));
  }
  return { attempts, failures, preemptions, lastCode, finalCode, ...(error !== undefined && { error }) };
}

function parseError(json: string): string | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined; // a line cut short by a crash
  }
}

/** "exited with code 1", "was killed by SIGKILL", "could not start (command not found)". */
export function describeExit(code: number, attempts: number): string {
  let what = `exited with code ${code}`;
  if (code === 127) what = "could not start: command not found (exit code 127)";
  else if (code === 126) what = "could not start: command not executable (exit code 126)";
  else if (code > 128 && code < 128 + 65) what = `was killed by ${signalName(code - 128)} (exit code ${code})`;
  return attempts > 1 ? `${what} after ${attempts} attempts` : what;
}

function signalName(n: number): string {
  return Object.entries(constants.signals).find(([, value]) => value === n)?.[0] ?? `signal ${n}`;
}
