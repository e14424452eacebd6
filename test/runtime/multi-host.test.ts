// Multi-host meshes on loopback: `fray worker` processes serve hosts; a client
// attaches, spawns procs on every host, and actors on different hosts call
// each other directly. A worker going away fails exactly its ranks.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { freePort } from "../../src/runtime/net/address.ts";

const token = randomBytes(32).toString("hex");
process.env.FRAY_TOKEN = token;

const { attachToWorkers, Channel, setUnhandledFaultHook, SupervisionError } = await import("../../src/mesh.ts");
const { Counter, Driver } = await import("../fixtures/actors.ts");
const { Tally } = await import("../fixtures/respawn-actors.ts");

const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const workers: ChildProcess[] = [];

/** Starts `fray worker` on a free port (with free ports after it for its procs); resolves with its address once it listens. */
async function startWorker(): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", bin, "worker", "--listen", `tcp://127.0.0.1:${port}`], { stdio: ["ignore", "pipe", "inherit"] });
  workers.push(child);
  for await (const line of child.stdout!) if (String(line).includes("listening")) break;
  return `tcp://127.0.0.1:${port}`;
}

describe("attachToWorkers", () => {
  let addrs: string[];
  before(async () => {
    addrs = [await startWorker(), await startWorker()];
  });
  after(async () => {
    for (const w of workers) {
      w.kill("SIGKILL");
      if (w.exitCode === null && w.signalCode === null) await once(w, "exit");
    }
  });

  it("spawns procs on every host; actors on different hosts call each other", async () => {
    const hosts = attachToWorkers(addrs, { token });
    assert.deepEqual(hosts.extent.dims, { hosts: 2 });
    const procs = hosts.spawnProcs({ gpus: 2 });
    assert.deepEqual(procs.sizes, { hosts: 2, gpus: 2 });
    const counters = procs.spawn("counters", Counter, 5);
    counters.slice({ hosts: 1 }).incr.broadcast(10);
    assert.deepEqual((await counters.get.call()).values(), [5, 5, 15, 15]);
    const drivers = procs.spawn("drivers", Driver);
    assert.deepEqual((await drivers.slice({ hosts: 0 }).sumOf.call(counters)).values(), [40, 40]);
    const [port, received] = Channel.open<number>();
    drivers.slice({ hosts: 1, gpus: 0 }).sendRange.broadcast(port, 5);
    const got = [];
    for (let i = 0; i < 5; i++) got.push(await received.recv());
    received.close();
    assert.deepEqual(got, [0, 1, 2, 3, 4]);
    await procs.stop();
  });

  it("a rank whose proc was killed is respawned by its own worker, at the same place", async (t) => {
    const [reported, failures] = Channel.open<number>();
    const previous = setUnhandledFaultHook((f) => reported.send(f.rank));
    t.after(() => setUnhandledFaultHook(previous));
    await using procs = attachToWorkers(addrs, { token }).spawnProcs({ gpus: 2 });
    const tallies = procs.spawn("remote-tallies", Tally, 7);
    try {
      tallies.incr.broadcast();
      assert.deepEqual((await tallies.get.call()).values(), [8, 8, 8, 8]);
      const victim = tallies.slice({ hosts: 1, gpus: 0 });
      const [pid, env] = await Promise.all([victim.pid.callOne(), victim.env.callOne()]);
      process.kill(pid, "SIGKILL");
      assert.equal(await failures.recv(), 2);
      await tallies.respawn(2);
      assert.deepEqual((await tallies.get.call()).values(), [8, 8, 7, 8]);
      assert.notEqual(await victim.pid.callOne(), pid);
      assert.deepEqual(await victim.env.callOne(), env);
      tallies.incr.broadcast();
      assert.deepEqual((await tallies.get.call()).values(), [9, 9, 8, 9]);
      // Actors on both hosts reach it through the mesh passed after the respawn.
      const drivers = procs.spawn("remote-drivers", Driver);
      assert.deepEqual((await drivers.slice({ gpus: 1 }).sumOf.call(tallies as never)).values(), [35, 35]);
    } finally {
      failures.close();
    }
  });

  it("a worker that goes away fails exactly its hosts' ranks; the rest answer", async (t) => {
    const failed: number[] = [];
    const [reported, failures] = Channel.open<void>();
    const previous = setUnhandledFaultHook((f) => {
      failed.push(f.rank);
      reported.send();
    });
    t.after(() => setUnhandledFaultHook(previous));
    const procs = attachToWorkers(addrs, { token }).spawnProcs({ gpus: 2 });
    const counters = procs.spawn("survivors", Counter, 1);
    await counters.initialized;
    workers[1].kill("SIGKILL");
    await failures.recv();
    await failures.recv();
    failures.close();
    assert.deepEqual(failed.sort(), [2, 3]);
    await assert.rejects(counters.slice({ hosts: 1 }).get.call(), SupervisionError);
    assert.deepEqual((await counters.slice({ hosts: 0 }).get.call()).values(), [1, 1]);
    await counters.stop();
  });

  it("an unreachable worker makes initialized reject naming its address", async (t) => {
    // Only here is the dial's deadline short: elsewhere a loaded machine may take seconds to start a proc.
    process.env.FRAY_CONNECT_TIMEOUT_MS = "3000";
    t.after(() => delete process.env.FRAY_CONNECT_TIMEOUT_MS);
    const port = await freePort();
    const procs = attachToWorkers([`tcp://127.0.0.1:${port}`], { token }).spawnProcs({ gpus: 1 });
    await assert.rejects(procs.initialized, new RegExp(`worker tcp://127\\.0\\.0\\.1:${port} is unreachable`));
  });

  it("refuses the this-host-only options processes and threads instead of ignoring them", () => {
    const hosts = attachToWorkers(["tcp://127.0.0.1:1"], { token });
    assert.throws(() => hosts.spawnProcs({ gpus: 4 }, { processes: 2 }), /option processes works only on thisHost\(\)/);
    assert.throws(() => hosts.spawnProcs({ gpus: 4 }, { threads: true }), /option threads works only on thisHost\(\)/);
  });
});
