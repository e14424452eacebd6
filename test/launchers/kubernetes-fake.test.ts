// KubernetesJob against a fake Kubernetes API server (there is no cluster
// here): checks the Secret and Job objects it creates and the attach flow —
// the fake runs each pod as a local process.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, it } from "node:test";
import { KubernetesJob } from "../../src/launchers.ts";
import { Counter } from "../fixtures/actors.ts";
import { FakeKubeApi, kubeConfigFor } from "../fixtures/fake-kube-api.ts";

const api = new FakeKubeApi();
after(() => api.stop());

it("KubernetesJob (fake API server): a token Secret and an Indexed Job per mesh; attaches to the pods; kill deletes them", async () => {
  const server = await api.start();
  const kubeConfig = kubeConfigFor(server);
  const fray = [process.execPath, "--import", import.meta.resolve("tsx"), fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url))];
  const job = new KubernetesJob({
    meshes: { trainers: 2 },
    image: "example/fray:latest",
    name: "fray-test",
    port: 24567,
    frayCommand: fray,
    kubeConfig,
    resources: { limits: { "nvidia.com/gpu": "8" } },
  });

  const spec = job.jobFor("trainers", 2);
  assert.equal(spec.spec!.completionMode, "Indexed");
  assert.equal(spec.spec!.completions, 2);
  const container = spec.spec!.template.spec!.containers[0];
  assert.deepEqual(container.command!.slice(-5), ["worker", "--listen", "tcp://$(POD_IP):24567", "--token-file", "/etc/fray/token"]);
  assert.deepEqual(container.resources, { limits: { "nvidia.com/gpu": "8" } });
  assert.equal(spec.spec!.template.spec!.volumes![0].secret!.secretName, "fray-test-token");

  const { trainers } = await job.state();
  assert.deepEqual(trainers.extent.dims, { hosts: 2 });
  const created = api.calls.filter((c) => c.method === "POST").map((c) => c.path);
  assert.deepEqual(created, ["/api/v1/namespaces/default/secrets", "/apis/batch/v1/namespaces/default/jobs"]);
  const token = api.secrets.get("fray-test-token")!.token;
  assert.ok(token.length >= 32);
  assert.ok(!JSON.stringify(api.jobs.get("fray-test-trainers")).includes(token), "the Job object holds the token");

  const procs = trainers.spawnProcs({ gpus: 1 });
  const counters = procs.spawn("counters", Counter, 4);
  assert.deepEqual((await counters.get.call()).values(), [4, 4]);
  await counters.stop();
  await procs.stop();

  const pods = api.pods.get("fray-test-trainers")!.map((p) => p.process);
  await job.kill();
  assert.deepEqual(
    api.calls.filter((c) => c.method === "DELETE").map((c) => c.path),
    ["/apis/batch/v1/namespaces/default/jobs/fray-test-trainers", "/api/v1/namespaces/default/secrets/fray-test-token"],
  );
  assert.ok(pods.every((p) => p.exitCode !== null || p.signalCode !== null));
  assert.equal(api.jobs.size, 0);
});
