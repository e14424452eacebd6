// SkyPilotJob against a fake `sky` CLI (there is no cloud here): checks the
// generated task (nodes, ports, resources, setup, mounts, autostop flags) and
// the attach flow — the fake runs each node as local processes.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, it } from "node:test";
import { SkyPilotJob } from "../../src/launchers.ts";
import { Counter } from "../fixtures/actors.ts";
import { isAlive } from "../helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "fray-fake-sky-"));
process.env.FAKE_SKY_DIR = dir;
const sky = fileURLToPath(new URL("./skypilot-fake-sky.mjs", import.meta.url));
// The nodes run in directories of their own, so tsx is named by its full URL.
const fray = `${process.execPath} --import ${import.meta.resolve("tsx")} ${fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url))}`;

after(() => {
  // Nodes the fake started are killed by `sky down`; make sure, even if a test failed.
  for (const file of ["fray-sky-test.pids"]) {
    try {
      for (const pid of JSON.parse(readFileSync(join(dir, file), "utf8")) as number[]) if (isAlive(pid)) process.kill(-pid, "SIGKILL");
    } catch {
      // nothing started
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

it("SkyPilotJob (fake sky): launches a task for every mesh's nodes, attaches, and downs the cluster", async () => {
  const job = new SkyPilotJob({
    meshes: { trainers: 2, evaluators: 1 },
    resources: { accelerators: "H100:8", cloud: "kubernetes" },
    clusterName: "fray-sky-test",
    port: 23456,
    idleMinutesToAutostop: 30,
    setupCommands: ["echo setting up"],
    fileMounts: { "~/data.txt": join(dir, "..", "nonexistent-not-used") },
    frayCommand: fray,
    sky,
  });
  // The generated task, as `sky launch` receives it.
  const task = job.task();
  assert.equal(task.num_nodes, 3);
  assert.deepEqual(task.resources, { accelerators: "H100:8", cloud: "kubernetes", ports: [23456] });
  assert.equal(task.setup, "echo setting up");
  assert.ok(Object.keys(task.file_mounts as object).includes("~/.fray/token"));
  assert.match(String(task.run), /worker --listen "tcp:\/\/\$MY_IP:23456" --token-file ~\/\.fray\/token/);
  assert.doesNotMatch(JSON.stringify(task), new RegExp(process.env.FRAY_TOKEN ?? "no-token-set"));

  // The real flow needs the mounted files to exist locally: drop the made-up mount.
  const launching = new SkyPilotJob({
    meshes: { trainers: 2, evaluators: 1 },
    clusterName: "fray-sky-test",
    port: 23456,
    idleMinutesToAutostop: 30,
    frayCommand: fray,
    sky,
  });
  const { trainers, evaluators } = await launching.state();
  assert.deepEqual(trainers.extent.dims, { hosts: 2 });
  assert.deepEqual(evaluators.extent.dims, { hosts: 1 });
  const procs = trainers.spawnProcs({ gpus: 1 });
  const counters = procs.spawn("counters", Counter, 2);
  assert.deepEqual((await counters.get.call()).values(), [2, 2]);
  await counters.stop();
  await procs.stop();
  await launching.kill();

  const calls = readFileSync(join(dir, "calls.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { args: string[]; task?: { num_nodes: number } });
  const launch = calls.find((c) => c.args[0] === "launch")!;
  assert.deepEqual(launch.args.slice(0, 9), ["launch", "-y", "-d", "-c", "fray-sky-test", "--idle-minutes-to-autostop", "30", "--down", launch.args[8]]);
  assert.equal(launch.task!.num_nodes, 3);
  assert.deepEqual(calls.at(-1)!.args, ["down", "-y", "fray-sky-test"]);
  const pids = JSON.parse(readFileSync(join(dir, "fray-sky-test.pids"), "utf8")) as number[];
  for (const pid of pids) while (isAlive(pid)) await new Promise((r) => setTimeout(r, 20));
});
