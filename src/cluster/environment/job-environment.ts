// cluster/environment: a job's runtime environment: workspace copy (workspace-copy.ts),
// npm packages (npm-environment.ts), setup scripts (wrapper.ts). Uses only the job request.
//
// A job's runtime environment (EnvironmentConfig), made ready at launch, before
// the scheduler sees the job: where its replicas run (the workspace, copied),
// which variables they get, which npm packages they resolve, and the command
// each runs (wrapped to run setupScripts first). A launch that fails here
// leaves nothing of its own behind.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { wrapCommand } from "./wrapper.ts";
import type { CheckedRequest } from "../job-request.ts";
import { npmEnvironment } from "./npm-environment.ts";
import { copyWorkspace } from "./workspace-copy.ts";

export interface PreparedEnvironment {
  /** The replicas' working directory. */
  readonly cwd: string;
  /** Variables every replica gets (the request's envVars and what the environment adds). */
  readonly env: Readonly<Record<string, string>>;
  /** The replica's command line, to run inside the replica loop. */
  readonly command: readonly string[];
}

export interface EnvironmentDirs {
  /** The job's own state directory (for Slurm, one every node sees). */
  readonly jobDir: string;
  /** The cluster's state directory: caches shared by its jobs live under it. */
  readonly clusterRoot: string;
}

export async function prepareEnvironment(job: CheckedRequest, command: readonly string[], dirs: EnvironmentDirs): Promise<PreparedEnvironment> {
  const env = { ...job.envVars };
  // First: the slowest step and the likeliest to fail, before anything is written for the job.
  const npm = job.npmPackages.length > 0 ? await npmEnvironment(job.name, job.npmPackages, dirs.clusterRoot) : undefined;
  if (job.workspace === undefined && job.setupScripts.length === 0 && !npm) return { cwd: process.cwd(), env, command };
  const made = !existsSync(dirs.jobDir);
  const workspace = join(dirs.jobDir, "workspace");
  try {
    mkdirSync(dirs.jobDir, { recursive: true });
    if (job.workspace !== undefined) copyWorkspace(job.workspace, workspace, [dirname(dirs.clusterRoot)]);
    const setupFile = job.setupScripts.length > 0 ? join(dirs.jobDir, "setup.sh") : "";
    // In a file, not on a command line: lines may hold secrets, and ps shows command lines.
    if (setupFile) writeFileSync(setupFile, `${job.setupScripts.join("\n")}\n`, { mode: 0o600 });
    return { cwd: job.workspace === undefined ? process.cwd() : workspace, env, command: setupFile || npm ? wrapCommand(command, setupFile, npm) : command };
  } catch (err) {
    rmSync(made ? dirs.jobDir : workspace, { recursive: true, force: true });
    throw new Error(`job ${job.name}: could not prepare its environment in ${dirs.jobDir}: ${(err as Error).message}`, { cause: err });
  }
}
