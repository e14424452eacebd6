// SimulatedJob: many simulated hosts packed into few OS processes, each host a
// virtual worker and each of its procs a Proc of its own, reached over TCP with
// the token like real hosts, so a 1,024-host mesh runs on a small machine.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { it } from "node:test";
import { SimulatedJob } from "../../src/launchers.ts";
import { Channel, SupervisionError, setUnhandledFaultHook, type HostMesh } from "../../src/mesh.ts";
import { Counter, Driver } from "../fixtures/actors.ts";
import { HostProbe } from "./simulated-hosts-actors.ts";
import { isAlive, waitForExit } from "../helpers.ts";
import { currentProc } from "../../src/runtime/runtime.ts";

// Simulated hosts share this machine's cores (with the other test files, too):
// a host's worker may answer its heartbeats later than a real host's 4 s allow.
// Nothing here is about that timeout; a proc's death shows as its connections closing.
process.env.FRAY_HOST_TIMEOUT_MS = "60000";

/** Runs `body` on `count` simulated hosts in `processes` OS processes, then kills the job and checks that none of them is left. */
async function onSimulatedHosts(count: number, processes: number, body: (hosts: HostMesh, pids: readonly number[]) => Promise<void>): Promise<void> {
  const job = new SimulatedJob({ meshes: { hosts: count }, processes });
  let pids: number[] = [];
  try {
    const { hosts } = await job.state();
    pids = job.pids;
    await body(hosts, pids);
  } finally {
    await job.kill();
    await waitForExit(pids);
    assert.deepEqual(pids.filter(isAlive), []);
  }
}

it("a 1,024-host × 1-proc simulated mesh spawns an actor on every rank, answers a call from every rank, and stops with no process left", async () => {
  await onSimulatedHosts(1024, 8, async (hosts, pids) => {
    assert.equal(pids.length, 8);
    assert.deepEqual(hosts.extent.dims, { hosts: 1024 });
    const procs = hosts.spawnProcs();
    const probes = procs.spawn("probes", HostProbe, 3);
    const answers = (await probes.where.call()).values();
    assert.equal(answers.length, 1024);
    answers.forEach((a, rank) => {
      assert.equal(a.rank, rank);
      assert.equal(a.value, 3 * rank + 1);
      assert.ok(pids.includes(a.pid), `rank ${rank} ran in pid ${a.pid}, not one of the job's processes`);
    });
    // Every host's proc is a Proc of its own, named after its host's worker, and all 8 processes hold some.
    assert.equal(new Set(answers.map((a) => a.addr)).size, 1024);
    assert.ok(answers.every((a) => /^tcp:\/\/127\.0\.0\.1:\d+\/\w+$/.test(a.addr)));
    assert.equal(new Set(answers.map((a) => a.pid)).size, 8);
    await probes.stop();
    await procs.stop();
  });
});

it("actors on simulated hosts call each other directly, within one OS process and across", async () => {
  await onSimulatedHosts(16, 2, async (hosts) => {
    const procs = hosts.spawnProcs();
    const counters = procs.spawn("counters", Counter, 2);
    const drivers = procs.spawn("drivers", Driver);
    // Every driver calls all 16 counters: each of its host's proc dials the 15 others.
    assert.deepEqual((await drivers.sumOf.call(counters as never)).values(), Array(16).fill(32));
    assert.deepEqual((await drivers.peer.call(counters as never)).values(), Array(16).fill(2));
    // They went through their hosts' own Procs: the simulating processes never needed one of their own.
    const probes = procs.spawn("probes", HostProbe, 1);
    assert.deepEqual((await probes.hasProcessProc.call()).values(), Array(16).fill(false));
    await procs.stop();
  });
});

it("a simulated host's proc told to exit is reported gone to its owner; the other hosts, in its OS process too, keep answering", async (t) => {
  const failed: number[] = [];
  const [reported, failures] = Channel.open<void>();
  const previous = setUnhandledFaultHook((f) => {
    failed.push(f.rank);
    reported.send();
  });
  t.after(() => setUnhandledFaultHook(previous));
  await onSimulatedHosts(16, 2, async (hosts) => {
    const procs = hosts.spawnProcs();
    const probes = procs.spawn("probes", HostProbe, 2);
    const before = (await probes.where.call()).values();
    const victim = 5;
    // What the proc's handle sends to kill it: the exit message, unannounced (a crash, not a stop).
    currentProc().send(before[victim].addr, { kind: "exit" });
    await failures.recv();
    failures.close();
    assert.deepEqual(failed, [victim]);
    await assert.rejects(probes.slice({ hosts: victim }).where.call(), SupervisionError);
    const rest = probes.slice({ hosts: { start: victim + 1 } });
    const after = (await rest.where.call()).values();
    assert.deepEqual(
      after.map((a) => a.value),
      before.slice(victim + 1).map((a) => a.value),
    );
    // Hosts that share the OS process of the one that went are among those still answering.
    assert.ok(after.some((a) => a.pid === before[victim].pid));
    assert.deepEqual((await probes.slice({ hosts: { start: 0, stop: victim } }).where.call()).values(), before.slice(0, victim));
    await procs.stop();
  });
});

it("a simulated host's proc stopped through its handle ends alone: no failure is reported, its rank's calls fail, the rest answer", async (t) => {
  const failed: number[] = [];
  const previous = setUnhandledFaultHook((f) => failed.push(f.rank));
  t.after(() => setUnhandledFaultHook(previous));
  await onSimulatedHosts(8, 2, async (hosts) => {
    const procs = hosts.spawnProcs();
    const probes = procs.spawn("probes", HostProbe, 5);
    const before = (await probes.where.call()).values();
    await procs.slice({ hosts: 2 }).stop();
    await assert.rejects(probes.slice({ hosts: 2 }).where.call(), SupervisionError);
    const others = [0, 1, 3, 4, 5, 6, 7];
    assert.deepEqual(
      await Promise.all(others.map((h) => probes.slice({ hosts: h }).where.callOne())),
      others.map((h) => before[h]),
    );
    assert.deepEqual(failed, []);
    await procs.stop();
  });
});

it("what a simulated host's actors write reaches the client's stdout tagged with their ranks", async () => {
  const client = fileURLToPath(new URL("./simulated-hosts-client.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", client], {
    env: { ...process.env, FRAY_LOG_STREAM: "", FRAY_LOG_AGGREGATE_MS: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const [code] = await once(child, "exit");
  assert.equal(code, 0, stderr);
  const pids = /pids ([\d ]+)/.exec(stderr)![1].split(" ").map(Number);
  await waitForExit(pids);
  assert.deepEqual(pids.filter(isAlive), []);
  const lines = stdout
    .split("\n")
    .filter((l) => l.includes("hello"))
    .sort();
  assert.deepEqual(
    lines,
    [0, 1, 2, 3].map((r) => `[sim hosts=${r}] hello from rank ${r}`),
  );
});

it("SimulatedJob rejects options it cannot honour, naming the fix", () => {
  assert.throws(() => new SimulatedJob({ meshes: { hosts: 4 }, processes: 0 }), /processes must be an integer from 1 to the number of hosts \(4\), got 0/);
  assert.throws(() => new SimulatedJob({ meshes: { hosts: 4 }, processes: 5 }), /processes must be an integer from 1 to the number of hosts \(4\), got 5/);
  assert.throws(() => new SimulatedJob({ meshes: { hosts: 4 }, processes: 1.5 }), /processes must be an integer/);
  assert.throws(() => new SimulatedJob({ meshes: { hosts: 0 } }), /mesh 'hosts' asks for 0 hosts; give a positive integer/);
  assert.throws(() => new SimulatedJob({ meshes: { hosts: 2.5 } }), /asks for 2\.5 hosts/);
  assert.throws(() => new SimulatedJob({ meshes: {} }), /at least one mesh/);
  // Hosts of all meshes count: 2 + 2 hosts can fill 4 processes, not 5.
  assert.ok(new SimulatedJob({ meshes: { a: 2, b: 2 }, processes: 4 }));
  assert.throws(() => new SimulatedJob({ meshes: { a: 2, b: 2 }, processes: 5 }), /\(4\), got 5/);
});

it("SimulatedJob refuses more hosts than this process's open-file limit allows, naming the limit", async () => {
  // In a client whose limit is 1,024 open files: 1,024 hosts need about 2,112 of them.
  const code =
    `import("./src/launchers.ts").then(({ SimulatedJob }) => { try { new SimulatedJob({ meshes: { hosts: 1024 }, processes: 8 }); ` +
    `} catch (e) { console.log(e.message); } })`;
  const child = spawn("sh", ["-c", `ulimit -n 1024 && exec "${process.execPath}" --import tsx -e '${code}'`], {
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (d) => (stdout += d));
  await once(child, "exit");
  assert.match(stdout, /1024 hosts in 8 processes need about 2112 open files in one process, over this process's limit of 1024; raise it \(ulimit -Hn\)/);
});
