// The parity suite for `fray/cluster`: the same tests over every backend
// (cluster/cluster-local.test.ts runs it on `local`, cluster/slurm.test.ts on a real Slurm).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { createCluster, Entrypoint, JobFailedError, type Cluster, type JobId } from "../../src/cluster.ts";
import { isAlive, waitForExit } from "../helpers.ts";
import { failWith, recordEnv, throwError } from "../fixtures/cluster-jobs.ts";
import { slurmHosts } from "./slurm-hosts.ts";

const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

/** A `node -e` entrypoint. */
export function nodeScript(source: string): Entrypoint {
  return Entrypoint.fromBinary(process.execPath, ["-e", source]);
}

/** Reads the job's log lines until one matches; resolves to that line's match. */
export async function logLineMatching(cluster: Cluster, jobId: JobId, pattern: RegExp): Promise<RegExpExecArray> {
  for await (const line of cluster.monitor(jobId)) {
    const m = pattern.exec(line);
    if (m) return m;
  }
  throw new Error(`job ${jobId} ended without a log line matching ${pattern}`);
}

/** A temp state dir whose jobs are all stopped and whose files are removed when the file's tests end. */
export function clusterFixture(kind: "local" | "slurm"): { spec: string; dir: string; cluster: Cluster } {
  // slurm: a directory every host of the test Slurm sees (its nodes have their own /tmp).
  const dir = mkdtempSync(join(kind === "slurm" ? slurmHosts().shared : tmpdir(), `fray-cluster-${kind}-`));
  // local: a fixed capacity, so the suites do not depend on the size of the machine they run on.
  const spec = kind === "local" ? `local?dir=${dir}&cpu=8` : `${kind}?dir=${dir}`;
  const cluster = createCluster(spec);
  after(async () => {
    for (const job of await cluster.listJobs()) if (job.status === "running" || job.status === "pending") await cluster.terminate(job.jobId);
    await cluster.stopNamespace(); // started by the first launch
    rmSync(dir, { recursive: true, force: true });
  });
  return { spec, dir, cluster };
}

export function clusterParitySuite(kind: "local" | "slurm"): void {
  describe(`fray/cluster on ${kind}`, () => {
    const fx = clusterFixture(kind);

    it("runs a node -e job: poll shows id, name and status, listJobs has it, wait → succeeded", async () => {
      const id = await fx.cluster.launch({ name: "hello", entrypoint: nodeScript("console.log('hello')") });
      const polled = await fx.cluster.poll(id);
      assert.equal(polled.jobId, id);
      assert.equal(polled.name, "hello");
      assert.ok(["pending", "running", "succeeded"].includes(polled.status), polled.status);
      assert.ok((await fx.cluster.listJobs()).some((j) => j.jobId === id && j.name === "hello"));
      const done = await fx.cluster.wait(id, { raiseOnFailure: true });
      assert.equal(done.status, "succeeded");
      assert.equal(done.errorMessage, undefined);
      assert.deepEqual(done.tasks, [{ status: "succeeded" }]);
      assert.deepEqual(await fx.cluster.logs(id), ["[replica-0] hello"]);
    });

    it("terminate() stops a running job: status stopped, its process gone", async () => {
      const id = await fx.cluster.launch({ name: "sleeper", entrypoint: nodeScript("console.log('started', process.pid); setInterval(() => {}, 1000)") });
      const pid = Number((await logLineMatching(fx.cluster, id, /started (\d+)/))[1]);
      assert.equal((await fx.cluster.poll(id)).status, "running");
      await fx.cluster.terminate(id);
      const info = await fx.cluster.wait(id, { raiseOnFailure: false });
      assert.equal(info.status, "stopped");
      assert.ok(info.errorMessage);
      await waitForExit([pid]);
      assert.equal(isAlive(pid), false);
      await assert.rejects(fx.cluster.wait(id, { raiseOnFailure: true }), /stopped/);
    });

    it("a callable job runs an exported function with its arguments and sees its env vars and FRAY_CLUSTER_SPEC", async () => {
      const out = join(fx.dir, "env.json");
      const names = ["SEED", "FRAY_CLUSTER_SPEC", "FRAY_REPLICA_ID", "FRAY_REPLICA_COUNT"];
      const id = await fx.cluster.launch({
        name: "callable",
        entrypoint: Entrypoint.fromCallable(recordEnv, [out, names, { when: new Date(0), data: new Uint8Array(3000) }]),
        environment: { envVars: { SEED: "42" } },
      });
      assert.equal((await fx.cluster.wait(id)).status, "succeeded");
      const seen = JSON.parse(readFileSync(out, "utf8"));
      assert.deepEqual(seen.env, { SEED: "42", FRAY_CLUSTER_SPEC: fx.spec, FRAY_REPLICA_ID: "0", FRAY_REPLICA_COUNT: "1" });
      assert.equal(seen.when, "1970-01-01T00:00:00.000Z");
      assert.equal(seen.bytes, 3000);
    });

    it("a callable that throws fails the job, with the error in the logs", async () => {
      const id = await fx.cluster.launch({ name: "thrower", entrypoint: Entrypoint.fromCallable(failWith, ["no convergence"]) });
      const info = await fx.cluster.wait(id, { raiseOnFailure: false });
      assert.equal(info.status, "failed");
      assert.match(info.errorMessage ?? "", /replica 0 exited with code 1/);
      assert.ok((await fx.cluster.logs(id)).some((l) => l.startsWith("[replica-0] RangeError: no convergence")));
    });

    it("a failed job says why: a callable's error, a binary's error line and last output lines, in JobInfo, JobFailedError and fray job status", async () => {
      const callable = await fx.cluster.launch({ name: "quota", entrypoint: Entrypoint.fromCallable(throwError, ["quota exceeded for shard 3"]) });
      const binary = await fx.cluster.launch({
        name: "disk",
        entrypoint: Entrypoint.fromBinary("sh", ["-c", "echo working; echo 'fatal: disk full' >&2; exit 1"]),
      });
      const [thrown, exited] = await fx.cluster.wait([callable, binary], { raiseOnFailure: false });
      assert.equal(thrown.errorMessage, "replica 0 exited with code 1: Error: quota exceeded for shard 3");
      const error = { errorClass: "Error", message: "quota exceeded for shard 3", causes: ["Error: quota exceeded for shard 3"] };
      assert.deepEqual(thrown.tasks, [{ status: "failed", errorMessage: "exited with code 1: Error: quota exceeded for shard 3", error, failures: 1 }]);
      assert.equal(thrown.failures, 1);
      assert.equal(thrown.preemptions, 0);
      // The line that looks like an error first, then the last lines.
      assert.match(exited.errorMessage ?? "", /^replica 0 exited with code 1: fatal: disk full( \| .*)? \| working$/);
      await assert.rejects(
        fx.cluster.wait(callable, { raiseOnFailure: true }),
        (e: Error) => e instanceof JobFailedError && e.message === `job ${callable} failed: replica 0 exited with code 1: Error: quota exceeded for shard 3`,
      );
      for (const [id, cause] of [
        [callable, "Error: quota exceeded for shard 3"],
        [binary, "fatal: disk full"],
      ]) {
        const status = spawnSync(process.execPath, [bin, "job", "status", id, "--cluster", fx.spec], {
          encoding: "utf8",
          timeout: 120_000,
          killSignal: "SIGKILL",
        });
        assert.equal(status.status, 0, status.stderr);
        assert.match(status.stdout, new RegExp(`${id}\\s+\\S+\\s+failed\\s+1 failed\\s+none\\s+replica 0 exited with code 1: .*${cause}`));
      }
    });

    it("3 replicas, replica 1 exits 1: [replica-k] logs, job failed with a message, tasks[1] failed, the others saw FRAY_REPLICA_COUNT=3", async () => {
      const id = await fx.cluster.launch({
        name: "replicas",
        entrypoint: nodeScript(
          "const r = process.env.FRAY_REPLICA_ID; console.log('replica', r, 'of', process.env.FRAY_REPLICA_COUNT); process.exit(r === '1' ? 1 : 0)",
        ),
        resources: { replicas: 3 },
        maxTaskFailures: 2,
      });
      const lines: string[] = [];
      for await (const line of fx.cluster.monitor(id)) lines.push(line);
      assert.deepEqual(lines.sort(), ["[replica-0] replica 0 of 3", "[replica-1] replica 1 of 3", "[replica-2] replica 2 of 3"]);
      const info = await fx.cluster.poll(id);
      assert.equal(info.status, "failed");
      assert.match(info.errorMessage ?? "", /replica 1 exited with code 1/);
      assert.deepEqual(
        info.tasks.map((t) => t.status),
        ["succeeded", "failed", "succeeded"],
      );
    });

    it(
      "JobRequest.replicas wins over resources.replicas; processesPerTask 2 runs 2 processes per replica, each with FRAY_PROCESS_ID and " +
        "FRAY_PROCESS_COUNT",
      async () => {
        const id = await fx.cluster.launch({
          name: "procs",
          entrypoint: nodeScript("const e = process.env; console.log('process', e.FRAY_PROCESS_ID, 'of', e.FRAY_PROCESS_COUNT, 'pid', process.pid)"),
          replicas: 2,
          processesPerTask: 2,
          resources: { replicas: 5 },
        });
        const info = await fx.cluster.wait(id);
        assert.equal(info.status, "succeeded");
        assert.equal(info.tasks.length, 2);
        const lines = await fx.cluster.logs(id);
        assert.deepEqual(lines.map((l) => l.replace(/ pid \d+$/, "")).sort(), [
          "[replica-0] process 0 of 2",
          "[replica-0] process 1 of 2",
          "[replica-1] process 0 of 2",
          "[replica-1] process 1 of 2",
        ]);
        assert.equal(new Set(lines.map((l) => l.split(" pid ")[1])).size, 4, "4 distinct processes");
      },
    );

    it("a failed replica is started again up to maxRetriesFailure times", async () => {
      const counter = join(fx.dir, "attempts");
      const source =
        `const fs = require("fs"); const n = fs.existsSync(${JSON.stringify(counter)}) ? ` +
        `Number(fs.readFileSync(${JSON.stringify(counter)}, "utf8")) + 1 : 1; fs.writeFileSync(${JSON.stringify(counter)}, String(n)); ` +
        `console.log("attempt", n); process.exit(n < 3 ? 1 : 0)`;
      const id = await fx.cluster.launch({ name: "flaky", entrypoint: nodeScript(source), maxRetriesFailure: 2 });
      assert.equal((await fx.cluster.wait(id)).status, "succeeded");
      const attempts = (await fx.cluster.logs(id)).filter((l) => /attempt \d/.test(l));
      assert.deepEqual(attempts, ["[replica-0] attempt 1", "[replica-0] attempt 2", "[replica-0] attempt 3"]);
      const once = await fx.cluster.launch({ name: "no-retries", entrypoint: nodeScript("process.exit(4)"), maxRetriesFailure: 1 });
      assert.match((await fx.cluster.wait(once, { raiseOnFailure: false })).errorMessage ?? "", /exited with code 4 after 2 attempts/);
    });

    it("a missing script fails; an unknown id is 'Job ID not found'; a list wait reports both failures", async () => {
      const missing = await fx.cluster.launch({ name: "missing", entrypoint: Entrypoint.fromBinary(process.execPath, [join(fx.dir, "no-such-script.js")]) });
      const bad = await fx.cluster.launch({ name: "bad-binary", entrypoint: Entrypoint.fromBinary("fray-no-such-program", []) });
      const good = await fx.cluster.launch({ name: "good", entrypoint: nodeScript("") });
      const err = await fx.cluster.wait([missing, bad, good], { raiseOnFailure: true }).then(
        () => assert.fail("wait should have thrown"),
        (e: Error & { jobs: { jobId: string }[] }) => e,
      );
      assert.ok(err instanceof JobFailedError);
      assert.match(err.message, /2 jobs did not succeed/);
      assert.match(err.message, new RegExp(`${missing} failed: replica 0 exited with code 1`));
      assert.match(err.message, new RegExp(`${bad} failed: replica 0 could not start: command not found`));
      assert.deepEqual(
        err.jobs.map((j) => j.jobId),
        [missing, bad],
      );
      const infos = await fx.cluster.wait([missing, good], { raiseOnFailure: false });
      assert.deepEqual(
        infos.map((i) => i.status),
        ["failed", "succeeded"],
      );
      for (const call of [fx.cluster.poll("999999"), fx.cluster.wait("999999"), fx.cluster.terminate("999999"), fx.cluster.logs("no/such")]) {
        await assert.rejects(call, /Job ID not found/);
      }
    });

    it("the fray job CLI: submit → list → logs → wait, with exit codes", () => {
      const cli = (...args: string[]) =>
        spawnSync(process.execPath, [bin, "job", args[0], "--cluster", fx.spec, ...args.slice(1)], {
          encoding: "utf8",
          timeout: 120_000,
          killSignal: "SIGKILL",
        });
      const submitted = cli(
        "submit",
        "--name",
        "cli-job",
        "--replicas",
        "2",
        "--env",
        "WORD=bird",
        "--",
        process.execPath,
        "-e",
        "console.log('the', process.env.WORD)",
      );
      assert.equal(submitted.status, 0, submitted.stderr);
      const id = submitted.stdout.trim();
      const listed = cli("list", "--json");
      assert.equal(listed.status, 0, listed.stderr);
      assert.ok((JSON.parse(listed.stdout) as { jobId: string }[]).some((j) => j.jobId === id));
      const waited = cli("wait", id);
      assert.equal(waited.status, 0, waited.stderr);
      assert.match(waited.stdout, new RegExp(`${id}\\s+cli-job\\s+succeeded\\s+2 succeeded`));
      assert.match(waited.stderr, new RegExp(`^waiting: 1/1 jobs ended \\(${id} succeeded\\)$`, "m"), "progress as plain lines when stderr is not a terminal");
      const logs = cli("logs", id);
      assert.deepEqual(logs.stdout.trim().split("\n").sort(), ["[replica-0] the bird", "[replica-1] the bird"]);
      const failing = cli("submit", "--", "sh", "-c", "exit 3");
      const waitedFail = cli("wait", failing.stdout.trim());
      assert.equal(waitedFail.status, 1);
      assert.match(waitedFail.stdout, /failed\s+1 failed\s+none\s+replica 0 exited with code 3/);
      const unknown = cli("status", "424242");
      assert.equal(unknown.status, 1);
      assert.match(unknown.stderr, /Job ID not found/);
    });
  });
}
