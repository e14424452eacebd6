// fray/cluster's `local` backend: the parity suite, and what only a local machine shows —
// jobs that outlive their launcher, live log streaming, SIGKILL after the grace period.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { createCluster, currentCluster, Entrypoint, withCluster, type JobInfo } from "../../src/cluster.ts";
import { startDashboard } from "../../src/dashboard.ts";
import { clusterFixture, clusterParitySuite, logLineMatching, nodeScript } from "./cluster-suite.ts";
import { recordEnv as recordEnvLike } from "../fixtures/cluster-jobs.ts";
import { waitForExit } from "../helpers.ts";

const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

clusterParitySuite("local");

describe("fray/cluster local only", () => {
  const fx = clusterFixture("local");

  it("monitor() streams lines while the job runs, not only at its end", async () => {
    const go = join(fx.dir, "go");
    const id = await fx.cluster.launch({
      name: "live",
      entrypoint: nodeScript(
        `const fs = require("fs"); console.log("ready"); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(go)})) { ` +
          `clearInterval(t); console.log("done"); } }, 20)`,
      ),
    });
    const seen: string[] = [];
    for await (const line of fx.cluster.monitor(id)) {
      seen.push(line);
      // The job only ends after this file exists, so "ready" must have arrived while it ran.
      if (line === "[replica-0] ready") writeFileSync(go, "");
    }
    assert.deepEqual(seen, ["[replica-0] ready", "[replica-0] done"]);
    assert.equal((await fx.cluster.poll(id)).status, "succeeded");
  });

  it("terminate() sends SIGKILL to a job that ignores SIGTERM, after FRAY_TERMINATE_GRACE_MS", async () => {
    const id = await fx.cluster.launch({
      name: "stubborn",
      entrypoint: nodeScript("process.on('SIGTERM', () => console.log('ignoring SIGTERM')); console.log('started', process.pid); setInterval(() => {}, 1000)"),
    });
    const pid = Number((await logLineMatching(fx.cluster, id, /started (\d+)/))[1]);
    process.env.FRAY_TERMINATE_GRACE_MS = "300";
    try {
      await fx.cluster.terminate(id);
    } finally {
      delete process.env.FRAY_TERMINATE_GRACE_MS;
    }
    assert.equal((await fx.cluster.poll(id)).status, "stopped");
    assert.ok((await fx.cluster.logs(id)).includes("[replica-0] ignoring SIGTERM"));
    await waitForExit([pid]);
  });

  it("a Node program's thrown error, its message's lines and its cause lead its failure message, in JobInfo, fray job status and the dashboard", async () => {
    const id = await fx.cluster.launch({
      name: "thrown",
      entrypoint: nodeScript(
        "console.log('loading shards'); throw new Error('disk full on /data\\nwhile writing shard 7', { cause: new Error('quota of 10 GB reached') })",
      ),
    });
    const info = await fx.cluster.wait(id, { raiseOnFailure: false });
    assert.equal(info.status, "failed");
    // What was thrown first, though 14 lines of stack trace came after it; then the last lines.
    assert.match(
      info.errorMessage ?? "",
      /^replica 0 exited with code 1: Error: disk full on \/data \| while writing shard 7 \| \[cause\]: Error: quota of 10 GB reached \| .*\| Node\.js v\d+\.\d+\.\d+$/,
    );
    const status = spawnSync(process.execPath, [bin, "job", "status", id, "--cluster", fx.spec], { encoding: "utf8", timeout: 60_000 });
    assert.equal(status.status, 0, status.stderr);
    const row = status.stdout.trimEnd().split("\n")[1];
    assert.match(row, /^\S+\s+thrown\s+failed\s+1 failed\s+none\s+replica 0 exited/);
    assert.ok(row.endsWith(info.errorMessage!), `${row}\nends with\n${info.errorMessage}`);
    const dashboard = await startDashboard({ token: fx.cluster.token(), cluster: fx.cluster });
    try {
      const api = (await (await fetch(`${dashboard.url}/api/jobs`, { headers: { authorization: `Bearer ${fx.cluster.token()}` } })).json()) as {
        jobs: JobInfo[];
      };
      assert.equal(api.jobs.find((j) => j.jobId === id)?.errorMessage, info.errorMessage);
    } finally {
      await dashboard.close();
    }
  });

  it("a job outlives the process that launched it; a later process follows and stops it", async () => {
    const submitted = spawnSync(
      process.execPath,
      [
        bin,
        "job",
        "submit",
        "--cluster",
        fx.spec,
        "--name",
        "detached",
        "--",
        process.execPath,
        "-e",
        "console.log('up', process.pid); setInterval(() => {}, 1000)",
      ],
      { encoding: "utf8", timeout: 60_000 },
    );
    assert.equal(submitted.status, 0, submitted.stderr);
    const id = submitted.stdout.trim();
    const later = createCluster(fx.spec); // as a second invocation would
    const pid = Number((await logLineMatching(later, id, /up (\d+)/))[1]);
    assert.equal((await later.poll(id)).status, "running");
    const stopped = spawnSync(process.execPath, [bin, "job", "stop", "--cluster", fx.spec, id], { encoding: "utf8", timeout: 60_000 });
    assert.equal(stopped.status, 0, stopped.stderr);
    assert.match(stopped.stdout, /stopped/);
    await waitForExit([pid]);
  });

  it("bad requests fail at launch with errors that name the fix, and start nothing", async () => {
    const ok = nodeScript("");
    const bad: [Parameters<typeof fx.cluster.launch>[0], RegExp][] = [
      [{ name: "has spaces", entrypoint: ok }, /job name "has spaces" is not allowed: .*no spaces/],
      [{ name: "x", entrypoint: { binary: "node" } as unknown as Entrypoint }, /Entrypoint\.fromBinary/],
      [{ name: "x", entrypoint: ok, resources: { cpu: -1 } }, /resources\.cpu must be a number of cores ≥ 0, got -1/],
      [{ name: "x", entrypoint: ok, resources: { ram: "4x" } }, /resources\.ram must be a size such as "512m", "4g".*got "4x"/],
      [{ name: "x", entrypoint: ok, resources: { replicas: 0 } }, /resources\.replicas must be a whole number ≥ 1/],
      [{ name: "x", entrypoint: ok, resources: { device: { kind: "gpu", count: -2 } } }, /device\.count must be a whole number ≥ 0/],
      [{ name: "x", entrypoint: ok, environment: { envVars: { "1BAD": "v" } } }, /environment variable name "1BAD" is not allowed/],
      [{ name: "x", entrypoint: ok, environment: { workspace: join(fx.dir, "nowhere") } }, /workspace .* is not a directory/],
      [{ name: "x", entrypoint: Entrypoint.fromCallable(() => 1) }, /export/],
      [
        { name: "x", entrypoint: Entrypoint.fromCallable(recordEnvLike, [(() => 1) as unknown as string, [], { when: new Date(), data: new Uint8Array() }]) },
        /the arguments of recordEnv: the function at \[0\] cannot be sent/,
      ],
    ];
    const before = (await fx.cluster.listJobs()).length;
    const service = await fx.cluster.runningNamespace();
    for (const [request, message] of bad) await assert.rejects(fx.cluster.launch(request), message);
    assert.equal((await fx.cluster.listJobs()).length, before);
    assert.deepEqual(readdirSync(join(fx.dir, "local")).filter((d) => d !== "namespace" && d !== "scheduler").length, before);
    assert.deepEqual(await fx.cluster.runningNamespace(), service, "nor a namespace service started for them");
    assert.throws(() => Entrypoint.fromBinary(""), /needs a program name/);
    assert.throws(() => new Entrypoint({}), /needs a binary or a callable/);
    assert.throws(() => new Entrypoint({ binary: "node", callable: recordEnvLike }), /not both/);
    assert.throws(() => Entrypoint.fromBinary("node", [1 as unknown as string]), /array of strings/);
  });

  it("spec strings: unknown schemes and options are errors; currentCluster follows withCluster, then FRAY_CLUSTER_SPEC", () => {
    assert.throws(() => createCluster("kubernetes"), /unknown cluster "kubernetes" in spec "kubernetes": use "local" or "slurm\?partition=NAME/);
    assert.throws(() => createCluster("local?partition=x"), /local has no option "partition"; it takes dir/);
    assert.throws(() => createCluster("slurm?partition="), /option partition needs a value/);
    assert.equal(createCluster(`slurm?partition=debug&dir=${fx.dir}`).spec, `slurm?partition=debug&dir=${fx.dir}`);
    const saved = process.env.FRAY_CLUSTER_SPEC;
    try {
      process.env.FRAY_CLUSTER_SPEC = fx.spec;
      assert.equal(currentCluster().spec, fx.spec);
      const other = createCluster(`local?dir=${join(fx.dir, "other")}`);
      assert.equal(
        withCluster(other, () => currentCluster()),
        other,
      );
      delete process.env.FRAY_CLUSTER_SPEC;
      assert.equal(currentCluster().spec, "local");
    } finally {
      if (saved === undefined) delete process.env.FRAY_CLUSTER_SPEC;
      else process.env.FRAY_CLUSTER_SPEC = saved;
    }
  });
});
