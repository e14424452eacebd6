// Everything that needs a real Slurm (slurmctld and three fake nodes with two
// fake H100s each, started here by scripts/slurm.sh), in one file so that one
// cluster serves all: SlurmJob (workers through sbatch/srun on every node,
// actors across the nodes, kill() leaves no job and no worker process), and
// fray/cluster's slurm backend (the parity suite, plus sbatch options as
// scontrol reports them, drained nodes, scancel).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { Entrypoint } from "../src/cluster.ts";
import { SlurmJob } from "../src/mesh.ts";
import { clusterFixture, clusterParitySuite, logLineMatching, nodeScript } from "./cluster-suite.ts";
import { namespaceSuite } from "./namespace-suite.ts";
import { NodeName } from "./fixtures/actors.ts";
import { waitForExit } from "./helpers.ts";

const script = fileURLToPath(new URL("../scripts/slurm.sh", import.meta.url));

before(() => {
  execFileSync("bash", [script, "up"], { env: { ...process.env, SLURM_NODES: "3" }, stdio: "pipe" });
});

after(() => {
  execFileSync("bash", [script, "down"], { stdio: "pipe" });
});

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

/** A base port for fake nodes' workers (base, base+100, base+200), below the ports the OS hands out itself. */
function workerBasePort(): number {
  const [ephemeralStart] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
  const span = Math.floor((ephemeralStart - 300 - 23000) / 10);
  return 23000 + Math.floor(Math.random() * span) * 10;
}

it("SlurmJob starts workers on 3 nodes, runs actors on each, and kill() cleans up", async () => {
  const job = new SlurmJob({ meshes: { trainers: 3 }, port: workerBasePort() });
  const { trainers } = await job.state();
  assert.deepEqual(trainers.extent.dims, { hosts: 3 });
  const procs = trainers.spawnProcs({ gpus: 1 });
  const names = procs.spawn("names", NodeName);
  const seen = (await names.name.call()).values();
  assert.deepEqual([...new Set(seen)].sort(), ["n1", "n2", "n3"]);
  await names.stop();
  await procs.stop();
  const [jobId] = job.jobIds;
  assert.match(execFileSync("squeue", ["-h", "-o", "%i"], { encoding: "utf8" }), new RegExp(`^${jobId}$`, "m"));
  await job.kill();
  assert.doesNotMatch(execFileSync("squeue", ["-h", "-o", "%i"], { encoding: "utf8" }), new RegExp(`^${jobId}$`, "m"));
  assert.deepEqual(processesMentioning("slurm-worker-main"), []);
});

it("SlurmJob whose worker port is taken: state() rejects naming the port, once the job has ended", async (t) => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "0.0.0.0", resolve));
  t.after(() => taken.close());
  const port = (taken.address() as AddressInfo).port;
  const job = new SlurmJob({ meshes: { trainers: 1 }, port });
  try {
    await assert.rejects(job.state(), new RegExp(`Slurm job \\d+ ended before its 1 workers started \\(0 did\\): .*cannot listen on tcp://\\S*:${port}: .*EADDRINUSE`));
  } finally {
    await job.kill();
  }
});

clusterParitySuite("slurm");
namespaceSuite("slurm");

describe("fray/cluster slurm only", () => {
  const fx = clusterFixture("slurm");
  const scontrol = (id: string) => execFileSync("scontrol", ["show", "job", "-o", id], { encoding: "utf8" });

  it("maps CPUs, memory and GPUs to sbatch options (as scontrol reports them)", async () => {
    const id = await fx.cluster.launch({
      name: "sized",
      entrypoint: nodeScript("console.log('gpus', process.env.CUDA_VISIBLE_DEVICES)"),
      resources: { cpu: 2, ram: "200m", device: { kind: "gpu", variant: "H100", count: 1 }, replicas: 2 },
    });
    const record = scontrol(id);
    assert.match(record, /NumCPUs=2 /);
    assert.match(record, /MinMemoryNode=200M /);
    assert.match(record, /TresPerNode=gres:gpu:H100:1/);
    assert.match(record, /JobName=sized /);
    assert.equal((await fx.cluster.wait(id)).status, "succeeded");
    assert.deepEqual((await fx.cluster.logs(id)).sort(), ["[replica-0] gpus 0", "[replica-1] gpus 0"]);
  });

  it("impossible requests are refused at launch, naming the problem", async () => {
    await assert.rejects(
      fx.cluster.launch({ name: "huge", entrypoint: nodeScript(""), resources: { cpu: 64 } }),
      /Slurm cannot ever run job huge \(Reason=PartitionConfig\): no node in the partition has --cpus-per-task=64/,
    );
    await assert.rejects(
      fx.cluster.launch({ name: "big-memory", entrypoint: nodeScript(""), resources: { ram: "64g" } }),
      /Slurm refused job big-memory: .*Requested node configuration is not available .*--mem=65536M/,
    );
    assert.deepEqual((await fx.cluster.listJobs()).filter((j) => j.name === "huge" || j.name === "big-memory"), []);
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
    const info = await fx.cluster.wait(id);
    assert.equal(info.status, "stopped");
    assert.match(info.errorMessage ?? "", /cancelled/);
    await waitForExit([pid]);
  });

  it("a binary entrypoint with arguments that need quoting reaches the job intact", async () => {
    const args = ["it's", "two words", "$HOME", "a\"b"];
    const id = await fx.cluster.launch({ name: "quoting", entrypoint: Entrypoint.fromBinary(process.execPath, ["-e", "console.log(JSON.stringify(process.argv.slice(1)))", ...args]) });
    assert.equal((await fx.cluster.wait(id)).status, "succeeded");
    assert.deepEqual(await fx.cluster.logs(id), [`[replica-0] ${JSON.stringify(args)}`]);
  });
});
