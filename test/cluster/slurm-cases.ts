// Everything that needs a real Slurm, run on the submit host of the test Slurm
// (slurmctld and three nodes with two fake H100s each, every host its own
// network namespace, the nodes with their own /tmp and /dev/shm:
// scripts/slurm.sh) by slurm.test.ts, which starts the cluster and reports each
// case: SlurmJob (workers through sbatch/srun on every node, actors across the
// nodes, kill() leaves no job and no worker process), and fray/cluster's slurm
// backend (the parity suite, the namespace service on the submit host, sbatch
// options as scontrol reports them, drained nodes, scancel), and what fails when
// a directory only the submit host sees is used. By hand, with the cluster up:
// scripts/slurm.sh on submit env VARS... node --import tsx --test test/cluster/slurm-cases.ts,
// with the VARS slurm.test.ts sets.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, it } from "node:test";
import { createCluster, Entrypoint } from "../../src/cluster.ts";
import { SlurmJob } from "../../src/launchers.ts";
import { pollUntil } from "../../src/runtime/base/poll.ts";
import { clusterFixture, clusterParitySuite, logLineMatching, nodeScript } from "./cluster-suite.ts";
import { slurmHosts, spawnOnNode } from "./slurm-hosts.ts";
import { namespaceSuite } from "../job/namespace-suite.ts";
import { NodeName } from "../fixtures/actors.ts";
import { gradient, Trainer } from "../fixtures/collective-actors.ts";
import { waitForExit } from "../helpers.ts";

/** Processes whose command line mentions `text`. */
function processesMentioning(text: string): number[] {
  return readdirSync("/proc").flatMap((p) => {
    if (!/^\d+$/.test(p)) return [];
    try {
      return readFileSync(`/proc/${p}/cmdline`, "utf8").includes(text) ? [Number(p)] : [];
    } catch {
      return [];
    }
  });
}

it("SlurmJob starts workers on 3 nodes, runs actors on each, an allReduce across the nodes, and kill() cleans up", async () => {
  const job = new SlurmJob({ meshes: { trainers: 3 } });
  const { trainers } = await job.state();
  assert.deepEqual(trainers.extent.dims, { hosts: 3 });
  const procs = trainers.spawnProcs({ gpus: 1 });
  const names = procs.spawn("names", NodeName);
  const seen = (await names.name.call()).values();
  assert.deepEqual([...new Set(seen)].sort(), ["n1", "n2", "n3"]);
  // Ranks 0..2, one per node, hold 1×, 2×, 3× the pattern: every rank gets 6× it.
  const ranks = procs.spawn("ranks", Trainer);
  for (const got of (await ranks.allReduce.call("sum", 1000)).values())
    assert.deepEqual(
      got,
      gradient(0, 1000).map((v) => 6 * v),
    );
  await ranks.stop();
  await names.stop();
  await procs.stop();
  const [jobId] = job.jobIds;
  assert.match(execFileSync("squeue", ["-h", "-o", "%i"], { encoding: "utf8" }), new RegExp(`^${jobId}$`, "m"));
  await job.kill();
  assert.doesNotMatch(execFileSync("squeue", ["-h", "-o", "%i"], { encoding: "utf8" }), new RegExp(`^${jobId}$`, "m"));
  assert.deepEqual(processesMentioning("slurm-worker-main"), []);
});

it("SlurmJob whose worker port is taken on its node: state() rejects naming the port, once the job has ended", async (t) => {
  // A process on node n1 holds a port there; the job's one worker goes to n1 and asks for that port.
  const holder = spawnOnNode("n1", [
    process.execPath,
    "-e",
    "const s = require('net').createServer().listen(0, '0.0.0.0', () => console.log(s.address().port))",
  ]);
  t.after(async () => {
    holder.kill("SIGKILL");
    await waitForExit([holder.pid!]);
  });
  const [line] = (await once(createInterface({ input: holder.stdout! }), "line")) as [string];
  const port = Number(line);
  await using job = new SlurmJob({ meshes: { trainers: 1 }, port, sbatchArgs: ["--nodelist=n1"] });
  await assert.rejects(
    job.state(),
    new RegExp(`Slurm job \\d+ ended before its 1 workers started \\(0 did\\): .*cannot listen on tcp://\\S*:${port}: .*EADDRINUSE`),
  );
});

it("SlurmJob whose jobDir only the submit host sees: state() rejects saying the node does not see it", async (t) => {
  const jobDir = mkdtempSync(join(tmpdir(), "fray-slurm-unshared-")); // the nodes have their own /tmp
  t.after(() => rmSync(jobDir, { recursive: true, force: true }));
  await using job = new SlurmJob({ meshes: { trainers: 1 }, jobDir });
  await assert.rejects(
    job.state(),
    new RegExp(
      `^Error: Slurm job \\d+ ended before its 1 workers started \\(0 did\\): there is no ${jobDir}/trainers/slurm-\\d+\\.out: the job never ran, ` +
        `or its node does not see ${jobDir} \\(give jobDir, or FRAY_CLUSTER_DIR, a directory every node sees\\)`,
    ),
  );
});

clusterParitySuite("slurm");
namespaceSuite("slurm");

describe("fray/cluster slurm only", () => {
  const fx = clusterFixture("slurm");
  const scontrol = (id: string) => execFileSync("scontrol", ["show", "job", "-o", id], { encoding: "utf8" });

  it("maps CPUs, memory, GPUs, disk and priority to sbatch options (as scontrol reports them)", async () => {
    const id = await fx.cluster.launch({
      name: "sized",
      entrypoint: nodeScript("console.log('gpus', process.env.CUDA_VISIBLE_DEVICES)"),
      resources: { cpu: 2, ram: "200m", disk: "512m", device: { kind: "gpu", variant: "H100", count: 1 }, replicas: 2 },
      priority: 5,
    });
    const record = scontrol(id);
    assert.match(record, / NumTasks=2 /);
    assert.match(record, / CPUs\/Task=2 /);
    assert.match(record, / MinMemoryCPU=100M /, "200m per replica over its 2 CPUs");
    assert.match(record, / MinTmpDiskNode=512M /);
    assert.match(record, / Nice=-5 /);
    assert.match(record, /TresPerTask=gres:gpu:H100:1/);
    assert.match(record, /JobName=sized /);
    const info = await fx.cluster.wait(id);
    assert.equal(info.status, "succeeded");
    assert.deepEqual(info.notEnforced, ["disk: Slurm places the job on nodes with that much TmpDisk (--tmp) but does not limit its use"]);
    assert.deepEqual((await fx.cluster.logs(id)).sort(), ["[replica-0] gpus 0", "[replica-1] gpus 0"]);
  });

  it("replicas sharing a node each see their own GPUs", async () => {
    const id = await fx.cluster.launch({
      name: "gpu-share",
      entrypoint: nodeScript("console.log(process.env.SLURMD_NODENAME, 'gpus', process.env.CUDA_VISIBLE_DEVICES)"),
      resources: { device: { kind: "gpu", variant: "H100", count: 1 }, replicas: 4 },
    });
    assert.equal((await fx.cluster.wait(id)).status, "succeeded");
    const byNode = new Map<string, string[]>();
    for (const line of await fx.cluster.logs(id)) {
      const [, node, gpus] = /^\[replica-\d\] (\S+) gpus (\S+)$/.exec(line) ?? assert.fail(line);
      byNode.set(node, [...(byNode.get(node) ?? []), gpus].sort());
    }
    for (const [node, gpus] of byNode) assert.deepEqual(gpus, ["0", "1"].slice(0, gpus.length), `${node}: distinct GPUs`);
  });

  it("impossible requests are refused at launch, naming the problem", async () => {
    await assert.rejects(
      fx.cluster.launch({ name: "huge", entrypoint: nodeScript(""), resources: { cpu: 64 } }),
      /Slurm cannot ever run job huge \(Reason=PartitionConfig\): no node in the partition has --ntasks=1 --cpus-per-task=64 /,
    );
    await assert.rejects(
      fx.cluster.launch({ name: "big-memory", entrypoint: nodeScript(""), resources: { ram: "64g" } }),
      /Slurm refused job big-memory: .*Memory specification can not be satisfied.*Requested node configuration is not available .*--mem-per-cpu=65536M/,
    );
    assert.deepEqual(
      (await fx.cluster.listJobs()).filter((j) => j.name === "huge" || j.name === "big-memory"),
      [],
    );
    await assert.rejects(
      fx.cluster.launch({ name: "big-disk", entrypoint: nodeScript(""), resources: { disk: "100g" } }),
      /Slurm refused job big-disk: .*Temporary disk specification can not be satisfied.*--tmp=102400M/,
    );
    await assert.rejects(
      fx.cluster.launch({ name: "tpu", entrypoint: nodeScript(""), resources: { device: { kind: "tpu", variant: "v5e-8" } } }),
      /asks for TPUs \(v5e-8\); Slurm clusters have none here/,
    );
  });

  it("a job stays pending while every node is drained, and terminate() stops it", async () => {
    execFileSync("scontrol", ["update", "nodename=n[1-3]", "state=drain", "reason=fray-test"]);
    try {
      const id = await fx.cluster.launch({ name: "drained", entrypoint: nodeScript("") });
      const info = await fx.cluster.poll(id);
      assert.equal(info.status, "pending");
      assert.match(scontrol(id), /JobState=PENDING/);
      await fx.cluster.terminate(id);
      assert.equal((await fx.cluster.poll(id)).status, "stopped");
    } finally {
      execFileSync("scontrol", ["update", "nodename=n[1-3]", "state=resume"]);
    }
  });

  it("a job cancelled with scancel from outside is stopped", async () => {
    const id = await fx.cluster.launch({ name: "cancelled", entrypoint: nodeScript("console.log('started', process.pid); setInterval(() => {}, 1000)") });
    const pid = Number((await logLineMatching(fx.cluster, id, /started (\d+)/))[1]);
    execFileSync("scancel", [id]);
    const info = await fx.cluster.wait(id, { raiseOnFailure: false });
    assert.equal(info.status, "stopped");
    assert.match(info.errorMessage ?? "", /cancelled/);
    await waitForExit([pid]);
  });

  it("a job's environment on Slurm: the workspace copied to the shared state dir, npm packages from its cache, setup scripts first", async () => {
    const workspace = mkdtempSync(join(fx.dir, "workspace-"));
    writeFileSync(join(workspace, "data.txt"), "from the workspace\n");
    const id = await fx.cluster.launch({
      name: "environment",
      entrypoint: nodeScript(
        "const fs = require('fs'); console.log(fs.readFileSync('data.txt', 'utf8').trim(), '|', fs.readFileSync('prepared', 'utf8').trim(), " +
          "'|', require('is-number/package.json').version, '|', process.cwd())",
      ),
      environment: { workspace, npmPackages: ["is-number@7.0.0"], setupScripts: ["echo prepared on $(hostname) > prepared"] },
    });
    assert.equal((await fx.cluster.wait(id)).status, "succeeded");
    const [line] = (await fx.cluster.logs(id)).filter((l) => l.includes(" | "));
    const [data, prepared, version, cwd] = line.replace("[replica-0] ", "").split(" | ");
    assert.deepEqual([data, version], ["from the workspace", "7.0.0"]);
    assert.match(prepared, /^prepared on /);
    assert.ok(cwd.startsWith(join(fx.dir, "slurm")), `the job ran in ${cwd}, a copy under the shared state dir`);
    assert.equal(existsSync(join(workspace, "prepared")), false, "the original workspace is untouched");
  });

  it("jobs run on the nodes; the namespace service listens on the submit host's bridge address; its dashboard lists the jobs", async () => {
    const id = await fx.cluster.launch({ name: "where", entrypoint: nodeScript("console.log(require('os').hostname())"), replicas: 3 });
    assert.equal((await fx.cluster.wait(id)).status, "succeeded");
    for (const line of await fx.cluster.logs(id)) assert.match(line, /^\[replica-\d\] n[1-3]$/);
    const service = await fx.cluster.namespace();
    assert.match(service.address, new RegExp(`^tcp://${slurmHosts().submit.ip.replaceAll(".", "\\.")}:\\d+$`));
    const answer = await fetch(new URL("api/jobs", service.dashboard), { headers: { authorization: `Bearer ${service.token}` } });
    assert.equal(answer.status, 200);
    const { jobs } = (await answer.json()) as { jobs: { jobId: string; status: string }[] };
    assert.deepEqual(
      jobs.filter((j) => j.jobId === id).map((j) => j.status),
      ["succeeded"],
    );
  });

  it("a cluster whose state dir only the submit host sees: its job fails saying the node does not see it", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "fray-cluster-unshared-")); // the nodes have their own /tmp
    const cluster = createCluster(`slurm?dir=${dir}`);
    t.after(async () => {
      await cluster.stopNamespace();
      rmSync(dir, { recursive: true, force: true });
    });
    const id = await cluster.launch({ name: "unshared", entrypoint: nodeScript("") });
    const info = await cluster.wait(id, { raiseOnFailure: false });
    assert.equal(info.status, "failed");
    assert.match(
      info.errorMessage ?? "",
      new RegExp(
        `^replica 0 ended without an exit record \\(Slurm FAILED, .*\\): there is no ${dir}/slurm/${id}\\.batch\\.out: the job never ran, or its ` +
          `node does not see ${dir}/slurm \\(give the cluster a dir= every node sees\\)$`,
      ),
    );
  });

  it("a binary entrypoint with arguments that need quoting reaches the job intact", async () => {
    const args = ["it's", "two words", "$HOME", 'a"b'];
    const id = await fx.cluster.launch({
      name: "quoting",
      entrypoint: Entrypoint.fromBinary(process.execPath, ["-e", "console.log(JSON.stringify(process.argv.slice(1)))", ...args]),
    });
    assert.equal((await fx.cluster.wait(id)).status, "succeeded");
    assert.deepEqual(await fx.cluster.logs(id), [`[replica-0] ${JSON.stringify(args)}`]);
  });
});

describe("fray/cluster slurm: gang replicas, maxTaskFailures, preemption", () => {
  const fx = clusterFixture("slurm");
  const scontrol = (id: string) => execFileSync("scontrol", ["show", "job", "-o", id], { encoding: "utf8" });
  const until = <T>(check: () => T | Promise<T>, what: string) => pollUntil(check, { intervalMs: 100, deadlineMs: 120_000, bound: "the test's 120 s", what });
  /** Node source: `const waitFor = (file) => Promise` resolving once `file` exists (the job's own wait, not the test's). */
  const WAIT_FOR =
    "const fs = require('fs'); const waitFor = (f) => new Promise((r) => { const t = setInterval(() => { if (fs.existsSync(f)) { " +
    "clearInterval(t); r(); } }, 50); });";
  const json = (value: unknown) => JSON.stringify(value);

  it("3 replicas are one allocation of 3 tasks in one step, all running at once, replica ids 0..2 from the task ranks", async () => {
    const dir = join(fx.dir, "gang");
    mkdirSync(dir);
    const source =
      `${WAIT_FOR} const e = process.env; fs.writeFileSync(${json(dir)} + '/' + e.FRAY_REPLICA_ID, JSON.stringify({ replica: ` +
      `e.FRAY_REPLICA_ID, job: e.SLURM_JOB_ID, rank: e.SLURM_PROCID, node: e.SLURMD_NODENAME })); waitFor(${json(join(dir, "go"))}).then(() ` +
      `=> console.log('done', e.FRAY_REPLICA_ID));`;
    const id = await fx.cluster.launch({ name: "gang", entrypoint: nodeScript(source), replicas: 3 });
    // Every replica has written its record and still waits: they run at the same time.
    const records = await until(() => {
      const files = readdirSync(dir);
      try {
        return files.length === 3 && files.sort().map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as Record<string, string>);
      } catch {
        return false; // a record still being written
      }
    }, "3 replicas to record themselves");
    assert.match(scontrol(id), / NumTasks=3 /);
    const steps = execFileSync("squeue", ["-s", "-h", "-j", id, "-o", "%i"], { encoding: "utf8" })
      .split("\n")
      .filter((s) => s && !s.endsWith(".batch"));
    assert.deepEqual(steps, [`${id}.0`], "one srun step holds the replicas");
    assert.deepEqual(
      records.map((r) => [r.replica, r.job, r.rank]),
      [
        ["0", id, "0"],
        ["1", id, "1"],
        ["2", id, "2"],
      ],
    );
    for (const r of records) assert.match(r.node, /^n[1-3]$/);
    assert.deepEqual((await fx.cluster.poll(id)).tasks, [{ status: "running" }, { status: "running" }, { status: "running" }]);
    writeFileSync(join(dir, "go"), "");
    assert.equal((await fx.cluster.wait(id)).status, "succeeded");
    assert.deepEqual((await fx.cluster.logs(id)).sort(), ["[replica-0] done 0", "[replica-1] done 1", "[replica-2] done 2"]);
  });

  /** Replica 1 exits 1 once the others have started (they log their pid and wait for `go`). */
  function oneFails(dir: string): Entrypoint {
    return nodeScript(`${WAIT_FOR} const r = process.env.FRAY_REPLICA_ID; fs.writeFileSync(${json(dir)} + '/started-' + r, '');
      if (r !== '1') console.log('pid', process.pid);
      if (r === '1') Promise.all(['0', '2'].map((o) => waitFor(${json(dir)} + '/started-' + o)))
        .then(() => { console.error('replica 1 gives up'); process.exit(1); });
      else waitFor(${json(join(dir, "go"))}).then(() => console.log('done', r));`);
  }

  it("maxTaskFailures 0: one replica failing stops the others and fails the job, naming that replica", async () => {
    const dir = join(fx.dir, "strict");
    mkdirSync(dir);
    const id = await fx.cluster.launch({ name: "strict", entrypoint: oneFails(dir), replicas: 3 });
    const info = await fx.cluster.wait(id, { raiseOnFailure: false });
    assert.equal(info.status, "failed");
    assert.equal(info.errorMessage, "replica 1 exited with code 1: replica 1 gives up");
    assert.deepEqual(info.tasks, [
      { status: "stopped", errorMessage: "was stopped because replica 1 failed" },
      { status: "failed", errorMessage: "exited with code 1: replica 1 gives up", failures: 1 },
      { status: "stopped", errorMessage: "was stopped because replica 1 failed" },
    ]);
    const pids = (await fx.cluster.logs(id)).flatMap((l) => /pid (\d+)/.exec(l)?.[1] ?? []).map(Number);
    assert.equal(pids.length, 2);
    await waitForExit(pids);
    assert.ok(!(await fx.cluster.logs(id)).some((l) => l.includes("done")), "no replica got past its wait");
  });

  it("maxTaskFailures 1 tolerates one failed replica: the others go on and finish", async () => {
    const dir = join(fx.dir, "tolerant");
    mkdirSync(dir);
    const id = await fx.cluster.launch({ name: "tolerant", entrypoint: oneFails(dir), replicas: 3, maxTaskFailures: 1 });
    const midway = await until(async () => {
      const info = await fx.cluster.poll(id);
      return info.tasks[1].status === "failed" && info;
    }, "replica 1 to fail");
    assert.equal(midway.status, "running");
    assert.deepEqual([midway.tasks[0].status, midway.tasks[2].status], ["running", "running"]);
    writeFileSync(join(dir, "go"), "");
    const info = await fx.cluster.wait(id, { raiseOnFailure: false });
    assert.deepEqual(
      info.tasks.map((t) => t.status),
      ["succeeded", "failed", "succeeded"],
    );
    assert.equal(info.status, "failed");
    assert.equal(info.errorMessage, "replica 1 exited with code 1: replica 1 gives up");
    assert.deepEqual((await fx.cluster.logs(id)).filter((l) => l.includes("done")).sort(), ["[replica-0] done 0", "[replica-2] done 2"]);
  });

  it("a requeue is a preemption, counted apart from failures; past maxRetriesPreemption the job fails saying so", async () => {
    const dir = join(fx.dir, "preempted");
    mkdirSync(dir);
    // Each replica fails its first attempt ever (retried: maxRetriesFailure 1), then runs until stopped.
    const source = `${WAIT_FOR} const r = process.env.FRAY_REPLICA_ID; const mark = ${json(dir)} + '/failed-' + r;
      if (!fs.existsSync(mark)) { fs.writeFileSync(mark, ''); process.exit(1); }
      console.log('run', process.env.SLURM_RESTART_COUNT ?? '0', 'replica', r); waitFor(${json(join(dir, "never"))});`;
    const id = await fx.cluster.launch({
      name: "preempted",
      entrypoint: nodeScript(source),
      replicas: 2,
      resources: { preemptible: true },
      maxRetriesFailure: 1,
      maxRetriesPreemption: 1,
    });
    const runs = async (run: number) => (await fx.cluster.logs(id)).filter((l) => l.includes(`run ${run} `)).length === 2;
    const preempt = async (run: number) => {
      await until(() => runs(run), `both replicas to log run ${run}`);
      execFileSync("scontrol", ["requeue", id]);
      // Slurm holds a requeued job for a while (BeginTime); let it start now.
      await until(async () => (await fx.cluster.poll(id)).status === "pending", "the requeued job to be pending");
      execFileSync("scontrol", ["update", `jobid=${id}`, "starttime=now"]);
    };
    await preempt(0);
    await until(() => runs(1), "both replicas to log run 1");
    const running = await fx.cluster.poll(id);
    assert.equal(running.status, "running");
    assert.deepEqual(running.tasks, [
      { status: "running", failures: 1, preemptions: 1 },
      { status: "running", failures: 1, preemptions: 1 },
    ]);
    assert.match(scontrol(id), / Restarts=1 /);
    await preempt(1);
    const info = await fx.cluster.wait(id, { raiseOnFailure: false });
    assert.equal(info.status, "failed");
    const why = "was preempted 2 time(s) (maxRetriesPreemption 1)";
    assert.deepEqual(info.tasks, [
      { status: "failed", errorMessage: why, failures: 1, preemptions: 2 },
      { status: "failed", errorMessage: why, failures: 1, preemptions: 2 },
    ]);
    assert.equal(info.errorMessage, `replica 0 ${why}; replica 1 ${why}`);
    assert.equal(info.failures, 2);
    assert.equal(info.preemptions, 4);
  });
});
