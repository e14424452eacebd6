// Shared test plumbing: every process a test starts is tracked and must be gone
// when the test file ends.
import assert from "node:assert/strict";
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import type { Readable } from "node:stream";
import { after, type TestContext } from "node:test";
import type { JobContext } from "../src/job.ts";
import type { ProcessJob } from "../src/launchers.ts";
import type { ProcMesh } from "../src/mesh.ts";
import { isAlive } from "./process-alive.ts";

export { isAlive };

const started = new Set<number>();

/** Remembers the mesh's processes; `after` asserts they are gone. */
export function track<M extends ProcMesh>(mesh: M): M {
  for (const pid of mesh.pids) started.add(pid);
  return mesh;
}

/** A job context made for a test, and the procs of a `mesh` one (stopped by the test after the context's shutdown). */
export interface TestJobContext {
  readonly ctx: JobContext;
  readonly procs?: ProcMesh;
}

/**
 * For a file whose tests run on several job backends: each of `kinds` with what makes its context, `workers` wide
 * (`maxWorkers`, or a mesh's own procs, tracked).
 */
export function jobBackends(kinds: readonly ("sync" | "threads" | "processes" | "mesh")[], workers: number): Array<[string, () => Promise<TestJobContext>]> {
  return kinds.map((kind) => [
    kind,
    async () => {
      // Loaded here, not above: most files that use these helpers make no job context, and need not load the job layer.
      const [{ createJobContext }, { thisHost }] = await Promise.all([import("../src/job.ts"), import("../src/mesh.ts")]);
      if (kind === "sync") return { ctx: createJobContext("sync") };
      if (kind !== "mesh") return { ctx: createJobContext(kind, { maxWorkers: workers }) };
      const procs = track(thisHost().spawnProcs({ workers }));
      return { ctx: createJobContext("mesh", { procs }), procs };
    },
  ]);
}

/** Resolves once every pid has exited (the caller bounds it with the test timeout). */
export async function waitForExit(pids: Iterable<number>): Promise<void> {
  for (const pid of pids) {
    while (isAlive(pid)) await new Promise((r) => setTimeout(r, 10));
  }
}

/** What a program run to its end did: how it exited, and what it printed. */
export interface ProgramRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `script` (a user's program, under tsx) as a child process until it exits by itself. Should it hang, the
 * test fails at its timeout and the child is killed as the test ends.
 */
export async function runProgram(t: TestContext, script: string, args: readonly string[] = []): Promise<ProgramRun> {
  return runChild(t, spawn(process.execPath, ["--import", "tsx", script, ...args], { stdio: ["ignore", "pipe", "pipe"] }));
}

/** Runs `script` as runProgram does, with `env` added, in a mount namespace of its own whose /dev/shm is a 1 MiB tmpfs (needs root). */
export async function runProgramWithSmallShm(t: TestContext, script: string, env: NodeJS.ProcessEnv = {}): Promise<ProgramRun> {
  const mount = 'mount -t tmpfs -o size=1m tmpfs /dev/shm && exec "$0" --import tsx "$1"';
  const args = ["--mount", "--propagation", "private", "sh", "-c", mount, process.execPath, script];
  return runChild(t, spawn("unshare", args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } }));
}

/** Runs `script` (TypeScript) in a child node whose limit of open files (RLIMIT_NOFILE, soft and hard) is `limit`, to its end. */
export async function runProgramWithFileLimit(t: TestContext, script: string, limit: number): Promise<ProgramRun> {
  const args = ["-c", 'ulimit -n "$2" && exec "$0" --import tsx "$1"', process.execPath, script, String(limit)];
  return runChild(t, spawn("sh", args, { stdio: ["ignore", "pipe", "pipe"] }));
}

async function runChild(t: TestContext, child: ChildProcessByStdio<null, Readable, Readable>): Promise<ProgramRun> {
  t.after(() => void child.kill("SIGKILL"));
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
  return { code, signal, stdout, stderr };
}

/** Kills a ProcessJob and checks that its worker processes are gone. */
export async function killJob(job: ProcessJob): Promise<void> {
  const pids = job.pids;
  await job.kill();
  await waitForExit(pids);
  assert.deepEqual(pids.filter(isAlive), []);
}

after(async () => {
  const alive = [...started].filter(isAlive);
  // Stopped meshes have exited; anything left is a leak. Kill it so the run stays clean, then fail.
  for (const pid of alive) process.kill(pid, "SIGKILL");
  assert.deepEqual(alive, [], `worker processes still alive after the tests: ${alive.join(", ")}`);
});
