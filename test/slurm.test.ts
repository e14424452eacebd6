// SlurmJob on a real Slurm (slurmctld and three fake nodes started here by
// scripts/slurm.sh): workers start through sbatch/srun on every node, the
// client attaches and spawns actors across the nodes, and kill() leaves no
// job in squeue and no worker process.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, before, it } from "node:test";
import { SlurmJob } from "../src/mesh.ts";
import { NodeName } from "./fixtures/actors.ts";

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

it("SlurmJob starts workers on 3 nodes, runs actors on each, and kill() cleans up", async () => {
  const job = new SlurmJob({ meshes: { trainers: 3 }, port: 23000 + Math.floor(Math.random() * 2000) * 10 });
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
