// Launchers wait for schedulers that send no events, by polling; every such
// wait has a deadline from an option or a setting, and its timeout error names
// what it waited for and what bounds it. Fakes stand in for the schedulers:
// the fake Kubernetes API server, and fake Slurm commands on PATH.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { KubernetesJob, SlurmJob } from "../../src/launchers.ts";
import { FakeKubeApi, kubeConfigFor } from "../fixtures/fake-kube-api.ts";

const api = new FakeKubeApi();
const bin = mkdtempSync(join(tmpdir(), "fray-fake-slurm-"));
after(async () => {
  await api.stop();
  rmSync(bin, { recursive: true, force: true });
});

/** Runs `fn` with environment variables set, then restores them. */
async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

it("KubernetesJob: pods that never run fail state() naming the pods awaited and the startTimeoutMs option", async () => {
  const server = await api.start();
  const kubeConfig = kubeConfigFor(server);
  // The "fray" in these pods never says it listens: the pods stay Pending.
  await using job = new KubernetesJob({
    meshes: { trainers: 2 },
    image: "example/fray:latest",
    name: "fray-stuck",
    frayCommand: ["sh", "-c", "exec sleep 600"],
    kubeConfig,
    startTimeoutMs: 300,
  });
  await assert.rejects(job.state(), {
    name: "TimeoutError",
    message:
      /^gave up waiting for 2 pods of mesh 'trainers' to run \(0 did\) after 300 ms \(the startTimeoutMs option \(300\)\); see kubectl get pods -n default -l fray\.job=fray-stuck,fray\.mesh=trainers$/,
  });
});

it("SlurmJob.kill(): jobs Slurm keeps listing after scancel fail kill() naming FRAY_SCANCEL_TIMEOUT_MS, instead of waiting forever", async () => {
  // sbatch accepts job 4242; no worker ever starts; squeue lists the job as running forever.
  const script = (body: string) => `#!/bin/sh\n${body}\n`;
  writeFileSync(join(bin, "sbatch"), script("echo 4242"));
  writeFileSync(join(bin, "scancel"), script("exit 0"));
  writeFileSync(join(bin, "squeue"), script('case "$*" in *%T*) echo RUNNING ;; *) echo 4242 ;; esac'));
  for (const name of ["sbatch", "scancel", "squeue"]) chmodSync(join(bin, name), 0o755);
  // FRAY_CLUSTER_DIR: the job's directory goes in this test's temp dir, not the home directory.
  await withEnv({ PATH: `${bin}:${process.env.PATH}`, FRAY_SCANCEL_TIMEOUT_MS: "300", FRAY_CLUSTER_DIR: bin }, async () => {
    const job = new SlurmJob({ meshes: { trainers: 1 }, startTimeoutMs: 200 });
    await assert.rejects(job.state(), /only 0 of 1 Slurm workers started within 200 ms \(the startTimeoutMs option \(200\)\)/);
    assert.deepEqual(job.jobIds, ["4242"]);
    await assert.rejects(job.kill(), {
      name: "TimeoutError",
      message:
        "gave up waiting for Slurm to stop listing jobs 4242 (scancel sent) after 300 ms (FRAY_SCANCEL_TIMEOUT_MS=300); see 'squeue -j 4242' " +
        "and 'scontrol show job 4242'",
    });
  });
});
