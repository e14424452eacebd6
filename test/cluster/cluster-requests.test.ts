// What fray/cluster makes of a JobRequest before any backend runs it: adoption of
// a running job of the same name, the ResourceConfig builders, and requests a
// backend cannot honour refused at launch with errors naming the fix.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { JobAlreadyExistsError, ResourceConfig, type JobRequest } from "../../src/cluster.ts";
import { clusterFixture, logLineMatching, nodeScript } from "./cluster-suite.ts";

const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

describe("launch(request, { adoptExisting })", () => {
  const fx = clusterFixture("local");

  it("a running job of the same name and request is adopted (default); another request or adoptExisting false is refused; an ended one is not", async () => {
    const go = join(fx.dir, "go");
    const waits = nodeScript(`console.log("up"); const t = setInterval(() => { if (require("fs").existsSync(${JSON.stringify(go)})) clearInterval(t); }, 20)`);
    const first = await fx.cluster.launch({ name: "trainer", entrypoint: waits });
    await logLineMatching(fx.cluster, first, /^\[replica-0\] up$/);
    await assert.rejects(
      fx.cluster.launch({ name: "trainer", entrypoint: nodeScript("process.exit(9)") }),
      /already running .* with a different request — entrypoint: was/,
    );
    assert.equal(await fx.cluster.launch({ name: "trainer", entrypoint: waits }, { adoptExisting: true }), first);
    const refused = await fx.cluster.launch({ name: "trainer", entrypoint: waits }, { adoptExisting: false }).then(
      () => assert.fail("launch should have refused"),
      (e: unknown) => e,
    );
    assert.ok(refused instanceof JobAlreadyExistsError);
    assert.equal(refused.jobId, first);
    assert.match(refused.message, new RegExp(`a job named trainer is already running \\(${first}\\): .*adoptExisting`));
    // The CLI says the same and exits 1.
    const cli = spawnSync(process.execPath, [bin, "job", "submit", "--cluster", fx.spec, "--name", "trainer", "--no-adopt", "--", "true"], {
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(cli.status, 1);
    assert.match(cli.stderr, /a job named trainer is already running/);
    const adopted = spawnSync(process.execPath, [bin, "job", "submit", "--cluster", fx.spec, "--name", "trainer", "--", waits.binary!, ...waits.args], {
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(adopted.stdout.trim(), first);
    assert.equal((await fx.cluster.listJobs()).filter((j) => j.name === "trainer").length, 1, "nothing else started");
    writeFileSync(go, "");
    assert.equal((await fx.cluster.wait(first)).status, "succeeded");
    const second = await fx.cluster.launch({ name: "trainer", entrypoint: nodeScript("") }, { adoptExisting: false });
    assert.notEqual(second, first);
    assert.equal((await fx.cluster.wait(second)).status, "succeeded");
  });

  it("fray job submit passes the request's fields: workspace, setup lines, processes per task, priority, task failures", () => {
    const workspace = mkdtempSync(join(fx.dir, "ws-"));
    writeFileSync(join(workspace, "input.txt"), "42\n");
    const cli = (...args: string[]) => spawnSync(process.execPath, [bin, "job", ...args], { encoding: "utf8", timeout: 120_000, killSignal: "SIGKILL" });
    // Setup lines run in each of a replica's processes at once: this one tolerates that (a plain cp onto a new file races; a rename does not).
    const submitted = cli(
      "submit",
      "--cluster",
      fx.spec,
      "--json",
      "--name",
      "flags",
      "--workspace",
      workspace,
      "--setup",
      "cp input.txt copied.$$ && mv -f copied.$$ copied.txt",
      "--setup",
      "echo set up",
      "--processes-per-task",
      "2",
      "--priority",
      "-3",
      "--max-task-failures",
      "1",
      "--",
      "sh",
      "-c",
      'echo "process $FRAY_PROCESS_ID read $(cat copied.txt)"',
    );
    assert.equal(submitted.status, 0, submitted.stderr);
    const { jobId } = JSON.parse(submitted.stdout) as { jobId: string };
    const waited = cli("wait", "--cluster", fx.spec, jobId);
    assert.equal(waited.status, 0, waited.stderr + waited.stdout);
    const logs = cli("logs", "--cluster", fx.spec, jobId).stdout.trim().split("\n").sort();
    assert.deepEqual(logs, ["[replica-0] process 0 read 42", "[replica-0] process 1 read 42", "[replica-0] set up", "[replica-0] set up"]);
    assert.equal(existsSync(join(workspace, "copied.txt")), false, "the job ran in a copy of the workspace");
    const bad = cli("submit", "--cluster", fx.spec, "--priority", "high", "--", "true");
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /--priority must be a whole number, got "high"/);
  });

  it("requests a local or Slurm cluster cannot honour are refused at launch, naming the fix, and start nothing", async () => {
    const ok = nodeScript("");
    const bad: [JobRequest, RegExp][] = [
      [
        { name: "x", entrypoint: ok, resources: { image: "ghcr.io/lab/train:1" } },
        /the local cluster cannot run container image "ghcr\.io\/lab\/train:1": .*remove resources\.image/,
      ],
      [{ name: "x", entrypoint: ok, environment: { image: "train:1" } }, /cannot run container image "train:1": .*remove environment\.image/],
      [{ name: "x", entrypoint: ok, resources: { regions: ["us-central1"] } }, /the local cluster has no regions; remove resources\.regions/],
      [{ name: "x", entrypoint: ok, resources: { zone: "us-central1-a" } }, /the local cluster has no zones; remove resources\.zone/],
      [{ name: "x", entrypoint: ok, environment: { npmPackages: ["not a spec"] } }, /"not a spec" is not an npm package spec; write "name", "name@1\.2\.3"/],
      [{ name: "x", entrypoint: ok, environment: { setupScripts: [""] } }, /environment\.setupScripts must be an array of non-empty strings/],
      [{ name: "x", entrypoint: ok, processesPerTask: 0 }, /processesPerTask must be a whole number ≥ 1, got 0/],
      [
        { name: "x", entrypoint: ok, processesPerTask: 2, resources: ResourceConfig.withGpu("H100", 3) },
        /processesPerTask 2 does not divide the replica's 3 gpus/,
      ],
      [{ name: "x", entrypoint: ok, priority: 1.5 }, /priority must be a whole number \(higher starts first\), got 1\.5/],
      [{ name: "x", entrypoint: ok, maxTaskFailures: -1 }, /maxTaskFailures must be a whole number ≥ 0, got -1/],
      [{ name: "x", entrypoint: ok, replicas: 0 }, /^TypeError: replicas must be a whole number ≥ 1, got 0/],
    ];
    for (const [request, message] of bad)
      await assert.rejects(fx.cluster.launch(request), (e: Error) => message.test(String(e)), `${JSON.stringify(request)} → ${message}`);
    await assert.rejects(
      fx.cluster.launch({ name: "x", entrypoint: ok }, { adoptExisting: "yes" as unknown as boolean }),
      /adoptExisting must be true or false, got "yes"/,
    );
    assert.deepEqual(
      (await fx.cluster.listJobs()).filter((j) => j.name === "x"),
      [],
    );
  });
});

it("ResourceConfig builders make the requests Marin's with_cpu / with_gpu / with_tpu make", () => {
  assert.deepEqual(ResourceConfig.withCpu({ cpu: 4, ram: "8g" }), { cpu: 4, ram: "8g", device: { kind: "cpu" } });
  assert.deepEqual(ResourceConfig.withGpu("H100", 8, { cpu: 16 }), { cpu: 16, device: { kind: "gpu", variant: "H100", count: 8 } });
  assert.deepEqual(ResourceConfig.withGpu("auto"), { device: { kind: "gpu", count: 1 } });
  assert.deepEqual(ResourceConfig.withTpu("v5p-8", 4, { replicas: 2 }), { replicas: 2, device: { kind: "tpu", variant: "v5p-8", count: 4 } });
  assert.throws(() => ResourceConfig.withGpu(""), /withGpu needs a GPU variant such as "H100" \(or "auto"\)/);
  const typed: ResourceConfig = ResourceConfig.withCpu(); // the name is the type too
  assert.deepEqual(typed, { device: { kind: "cpu" } });
});
