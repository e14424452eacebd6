// ActorMesh.respawn(rank, { host }): the ranks of a host that is lost — its
// `fray worker` and its procs killed with SIGKILL — move to a newly attached
// worker or to another host of the mesh; call() answers on the whole mesh and
// an allReduce regroups with the moved ranks. What cannot be honoured is refused.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { freePort } from "../../src/runtime/net/address.ts";
import { waitForExit } from "../helpers.ts";

const token = randomBytes(32).toString("hex");
process.env.FRAY_TOKEN = token;

const { attachToWorkers, Channel, setUnhandledFaultHook, SupervisionError, thisHost } = await import("../../src/mesh.ts");
const { currentProc } = await import("../../src/runtime/runtime.ts");
const { Tally } = await import("../fixtures/respawn-actors.ts");
const { Trainer } = await import("../fixtures/collective-actors.ts");

const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const workers: ChildProcess[] = [];

/** Starts `fray worker` on a free loopback port with `env` added; resolves with it and its address once it listens. */
async function startWorker(env: Record<string, string> = {}): Promise<{ addr: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", bin, "worker", "--listen", `tcp://127.0.0.1:${port}`], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  workers.push(child);
  for await (const line of child.stdout!) if (String(line).includes("listening")) break;
  return { addr: `tcp://127.0.0.1:${port}`, child };
}

/** Resolves once this process has seen the connection to `addr` end. */
function lost(addr: string): Promise<void> {
  const proc = currentProc();
  return new Promise((resolve) => {
    if (proc.lostPeer(addr)) return resolve();
    const unwatch = proc.onPeerLost((a) => a === addr && (unwatch(), resolve()));
  });
}

describe("ActorMesh.respawn(rank, { host })", () => {
  after(async () => {
    for (const w of workers) {
      w.kill("SIGKILL");
      if (w.exitCode === null && w.signalCode === null) await once(w, "exit");
    }
  });

  it("moves the ranks of a lost host to a new worker and to another host of the mesh; call() and allReduce work again", async (t) => {
    const [reported, failures] = Channel.open<string>();
    const previous = setUnhandledFaultHook((f) => reported.send(`${f.meshName} ${f.rank}`));
    t.after(() => {
      setUnhandledFaultHook(previous);
      failures.close();
    });
    // The spare worker C (with one GPU) starts now, to save time, but is attached only once host 1 is lost.
    const [a, b, c] = await Promise.all([startWorker(), startWorker(), startWorker({ CUDA_VISIBLE_DEVICES: "0" })]);
    const procs = attachToWorkers([a.addr, b.addr], { token }).spawnProcs({ gpus: 2 });
    const seen = new Set<number>();
    try {
      const tallies = procs.spawn("tallies", Tally, 5);
      const trainers = procs.spawn("trainers", Trainer);
      tallies.incr.broadcast();
      assert.deepEqual((await tallies.get.call()).values(), [6, 6, 6, 6]);
      assert.deepEqual((await trainers.allReduceIs.call(1000, 10)).values(), [true, true, true, true]);
      const pids = (await tallies.pid.call()).values();
      pids.forEach((pid) => seen.add(pid));
      const envs = (await tallies.env.call()).values();

      // Host 1 is lost: its two procs and its worker, killed by PID.
      for (const pid of pids.slice(2)) process.kill(pid, "SIGKILL");
      b.child.kill("SIGKILL");
      const failed = [];
      for (let i = 0; i < 4; i++) failed.push(await failures.recv());
      assert.deepEqual(failed.sort(), ["tallies 2", "tallies 3", "trainers 2", "trainers 3"]);
      await lost(b.addr);
      await assert.rejects(tallies.get.call(), SupervisionError);
      // Starting procs on the lost worker's address again fails at once, naming it (it is never dialed again).
      await assert.rejects(attachToWorkers([b.addr], { token }).spawnProcs().initialized, new RegExp(`worker ${b.addr} was lost \\(`));

      // Its own host cannot take the rank back; the error names the fix.
      await assert.rejects(
        tallies.respawn(2),
        (e: Error) =>
          e instanceof SupervisionError &&
          e.message.startsWith(`cannot respawn rank 2 of mesh 'tallies': its host's worker ${b.addr} is gone (`) &&
          e.message.includes("respawn(rank, { host }) moves the rank to another worker: pass a HostMesh of one live worker"),
      );
      // Hosts that cannot take it.
      await assert.rejects(
        tallies.respawn(2, { host: attachToWorkers([b.addr], { token }) }),
        (e: Error) => e instanceof SupervisionError && e.message.includes(`on worker ${b.addr}: that worker is gone (`),
      );
      await assert.rejects(
        tallies.respawn(2, { host: thisHost() }),
        (e: Error) => e instanceof TypeError && /rank 2 of mesh 'tallies' on thisHost\(\)/.test(e.message),
      );
      await assert.rejects(
        tallies.respawn(2, { host: attachToWorkers([a.addr, b.addr], { token }) }),
        (e: Error) => e instanceof RangeError && /host is a HostMesh of 2 hosts; pass one worker's/.test(e.message),
      );
      await assert.rejects(
        tallies.respawn(2, { host: a.addr as never }),
        (e: Error) =>
          e instanceof TypeError && /host must be a HostMesh of one worker, e\.g\. attachToWorkers\(\["tcp:\/\/HOST:PORT"\]\), got string/.test(e.message),
      );
      await assert.rejects(
        tallies.respawn(2, { hots: 1 } as never),
        (e: Error) => e instanceof TypeError && /unknown option hots; the only option is host/.test(e.message),
      );

      // A newly attached worker with one GPU takes rank 2 (gpus 0) but cannot start rank 3 (gpus 1).
      const spare = attachToWorkers([c.addr], { token });
      await tallies.respawn(2, { host: spare });
      const moved = tallies.slice({ hosts: 1, gpus: 0 });
      assert.equal(await moved.parentPid.callOne(), c.child.pid, "rank 2 runs under the new worker");
      seen.add(await moved.pid.callOne());
      await assert.rejects(
        tallies.respawn(3, { host: spare }),
        (e: Error) =>
          e instanceof SupervisionError &&
          e.message.startsWith(`cannot respawn rank 3 of mesh 'tallies': its new process did not start: worker ${c.addr} could not start a proc`) &&
          e.message.includes("needs a GPU, but this host's CUDA_VISIBLE_DEVICES=0 lists 1"),
      );
      // … so rank 3 goes to the mesh's other host.
      await tallies.respawn(3, { host: attachToWorkers([a.addr], { token }) });
      assert.equal(await tallies.slice({ hosts: 1, gpus: 1 }).parentPid.callOne(), a.child.pid);

      // The trainers share those procs: rank 2's is alive on the new worker, so it cannot be moved elsewhere.
      await assert.rejects(
        trainers.respawn(2, { host: attachToWorkers([a.addr], { token }) }),
        (e: Error) => e.message.includes(`on worker ${a.addr}: its process ${c.addr}/`) && e.message.includes(`is alive on worker ${c.addr}; respawn(rank)`),
      );
      await trainers.respawn(2);
      await trainers.respawn(3, { host: attachToWorkers([a.addr], { token }) }); // where its process already is

      for (const pid of (await tallies.pid.call()).values()) seen.add(pid);
      assert.deepEqual((await tallies.get.call()).values(), [6, 6, 5, 5]);
      assert.deepEqual((await tallies.env.call()).values(), envs, "the moved ranks keep their rank environment");
      for (let i = 0; i < 2; i++) assert.deepEqual((await trainers.allReduceIs.call(1000, 10)).values(), [true, true, true, true]);
      tallies.incr.broadcast();
      assert.deepEqual((await tallies.get.call()).values(), [7, 7, 6, 6]);
    } finally {
      await procs.stop();
    }
    await waitForExit(seen);
  });
});
