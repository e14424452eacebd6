// The POSIX shell loop every replica runs in, on every backend: it runs the
// command, appends "exit ATTEMPT CODE" to the exit file after each attempt,
// starts it again up to RETRIES times while it fails, and finally appends
// "final CODE". The file outlives the process and the scheduler's memory of
// it, so any later process can tell how the replica ended. The command finds
// the file in FRAY_REPLICA_EXIT_FILE: a job function that throws appends
// "error JSON" (its error) there before it exits.
//   sh -c REPLICA_LOOP fray-replica EXIT_FILE RETRIES CMD ARGS...
import { constants } from "node:os";
import { settingName } from "../runtime/config.ts";

export const REPLICA_LOOP = `exit_file=$1; retries=$2; shift 2
export ${settingName("replicaExitFile")}="$exit_file"
attempt=0
while :; do
  "$@"
  rc=$?
  echo "exit $attempt $rc" >> "$exit_file"
  if [ "$rc" -eq 0 ] || [ "$attempt" -ge "$retries" ]; then break; fi
  attempt=$((attempt + 1))
  echo "[fray] exited with code $rc; starting it again (retry $attempt of $retries)" >&2
done
echo "final $rc" >> "$exit_file"
exit "$rc"`;

export interface ExitRecord {
  /** Attempts made so far. */
  readonly attempts: number;
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
  let lastCode: number | undefined;
  let finalCode: number | undefined;
  let error: string | undefined;
  let reported: string | undefined; // by the attempt still running, until its exit line
  for (const line of text.split("\n")) {
    const [kind, a, b] = line.trim().split(" ");
    if (kind === "exit") (attempts = Number(a) + 1), (lastCode = Number(b)), (error = reported), (reported = undefined);
    else if (kind === "final") finalCode = Number(a);
    else if (kind === "error") reported = parseError(line.trim().slice("error ".length));
  }
  return { attempts, lastCode, finalCode, ...(error !== undefined && { error }) };
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
