// The jobs Slurm holds under a name that a cluster's launches submitted, asked of Slurm itself rather than the state
// directory: a launch sees another host's sbatch as soon as Slurm has answered it, before that launch has recorded
// its job. A job is the cluster's if its batch output goes to the cluster's state directory (squeue shows --output as
// given, `%j` and all, or expanded by a newer Slurm); `--me`, as only its user's launches write there.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { slurmFiles } from "./batch-script.ts";
import { slurmStateLive } from "./state.ts";

const run = promisify(execFile);

/** The ids of this user's jobs named `name` whose output goes to state directory `root` and that wait or run, oldest first. */
export async function liveJobsNamed(root: string, name: string): Promise<string[]> {
  const args = ["--noheader", "--me", `--name=${name}`, "--Format=JobID:32|,State:32|,StdOut:4096|"];
  const { stdout } = await run("squeue", args).catch((err: Error & { stderr?: string }) => {
    throw new Error(`squeue ${args.join(" ")} failed: ${err.stderr?.trim() || err.message}`, { cause: err });
  });
  return stdout
    .split("\n")
    .flatMap((line) => {
      const [jobId, state, output] = line.split("|").map((f) => f.trim());
      const ours = output === slurmFiles.batchLog(root, "%j") || output === slurmFiles.batchLog(root, jobId);
      return jobId && ours && slurmStateLive(state) ? [jobId] : [];
    })
    .sort((a, b) => Number(a) - Number(b));
}
