// ActorMesh.respawn(rank): the owner replaces a failed rank in place — a new
// process at the same place when the old one died, the actor constructed again
// with its original arguments — and the whole mesh answers call() again.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ActorError, Channel, SupervisionError, setUnhandledFaultHook, thisHost, thisProc, type MeshFailure } from "../../src/mesh.ts";
import { kSpawnWith } from "../../src/mesh/proc-mesh.ts";
import { Trainer } from "../fixtures/collective-actors.ts";
import { Turnstile } from "../fixtures/concurrency-actors.ts";
import { Bystander, Keeper, Tally } from "../fixtures/respawn-actors.ts";
import { isAlive, track, waitForExit } from "../helpers.ts";

/** Failures of meshes this client owns, as they reach the root (no supervise() here). */
function collectFailures(t: { after(fn: () => void): void }) {
  const [port, failures] = Channel.open<MeshFailure>();
  const previous = setUnhandledFaultHook((f) => port.send(f));
  t.after(() => {
    setUnhandledFaultHook(previous);
    failures.close();
  });
  return failures;
}

describe("ActorMesh.respawn", () => {
  it("kill -9 of rank 2 of 4: respawn(2) restarts it at its place with its constructor; call() answers all four; twice", async (t) => {
    const failures = collectFailures(t);
    const seen = new Set<number>();
    {
      await using procs = track(thisHost().spawnProcs({ gpus: 4 }));
      const tallies = procs.spawn("tallies", Tally, 10);
      tallies.incr.broadcast();
      assert.deepEqual((await tallies.get.call()).values(), [11, 11, 11, 11]);
      const env = await tallies.slice({ gpus: 2 }).env.callOne();
      assert.deepEqual(env, { RANK: "2", WORLD_SIZE: "4", LOCAL_RANK: "2", LOCAL_WORLD_SIZE: "4", CUDA_VISIBLE_DEVICES: "2" });
      for (let round = 1; round <= 2; round++) {
        const pid = procs.pids[2];
        seen.add(pid);
        process.kill(pid, "SIGKILL");
        const failure = await failures.recv();
        assert.equal(failure.meshName, "tallies");
        assert.equal(failure.rank, 2);
        assert.match(failure.cause.message, /killed by SIGKILL/);
        await assert.rejects(tallies.get.call(), SupervisionError);

        await tallies.respawn(2);
        track(procs);
        const fresh = await tallies.slice({ gpus: 2 }).pid.callOne();
        assert.notEqual(fresh, pid);
        assert.equal(procs.pids[2], fresh, "the ProcMesh names the new process, so stop() ends it");
        assert.deepEqual(await tallies.slice({ gpus: 2 }).env.callOne(), env);
        // Rank 2's state is its constructor's again; the others kept theirs.
        assert.deepEqual((await tallies.get.call()).values(), [11 + round - 1, 11 + round - 1, 10, 11 + round - 1]);
        tallies.incr.broadcast();
        assert.deepEqual((await tallies.get.call()).values(), [11 + round, 11 + round, 11, 11 + round]);
        assert.equal(await tallies.slice({ gpus: 2 }).get.callOne(), 11);
        // Put rank 2 back in step with the others for the next round's check.
        for (let k = 0; k < round - 1; k++) await tallies.slice({ gpus: 2 }).incr.callOne();
      }
      for (const pid of procs.pids) seen.add(pid);
    }
    await waitForExit(seen);
    assert.deepEqual([...seen].filter(isAlive), []);
  });

  it("collectives work again after a respawn: every rank regroups, the new one included", async (t) => {
    const failures = collectFailures(t);
    const seen = new Set<number>();
    {
      await using procs = track(thisHost().spawnProcs({ gpus: 4 }));
      const trainers = procs.spawn("trainers", Trainer);
      for (let i = 0; i < 2; i++) assert.deepEqual((await trainers.allReduceIs.call(1000, 10)).values(), [true, true, true, true]);
      for (const pid of procs.pids) seen.add(pid);
      process.kill(procs.pids[2], "SIGKILL");
      assert.equal((await failures.recv()).rank, 2);
      await trainers.respawn(2);
      for (const pid of track(procs).pids) seen.add(pid);
      for (let i = 0; i < 2; i++) assert.deepEqual((await trainers.allReduceIs.call(1000, 10)).values(), [true, true, true, true]);
      assert.deepEqual((await trainers.slice({ gpus: { start: 1, stop: 3 } }).allReduceIs.call(10, 3)).values(), [true, true]);
    }
    await waitForExit(seen);
  });

  it("a constructor that throws on respawn rejects it; the rank stays failed and can be respawned again", async (t) => {
    const failures = collectFailures(t);
    const dir = mkdtempSync(join(tmpdir(), "fray-respawn-"));
    const refuse = join(dir, "refuse");
    process.env.TALLY_REFUSE_FILE = refuse; // read by Tally's constructor in the processes started from now on
    t.after(() => {
      delete process.env.TALLY_REFUSE_FILE;
      rmSync(dir, { recursive: true, force: true });
    });
    const seen = new Set<number>();
    {
      await using procs = track(thisHost().spawnProcs({ gpus: 2 }));
      const tallies = procs.spawn("fragile", Tally, 3);
      await tallies.initialized;
      for (const pid of procs.pids) seen.add(pid);
      process.kill(procs.pids[1], "SIGKILL");
      assert.equal((await failures.recv()).rank, 1);
      writeFileSync(refuse, "1");
      try {
        await assert.rejects(
          tallies.respawn(1),
          (e: Error) =>
            e instanceof ActorError &&
            /Tally constructor\.fragile failed on rank 1 \{gpus: 1\} of mesh fragile: Error: rank 1 refuses to start/.test(e.message),
        );
      } finally {
        rmSync(refuse);
      }
      for (const pid of track(procs).pids) seen.add(pid);
      await assert.rejects(tallies.get.call(), (e: Error) => e instanceof SupervisionError && /rank 1 of mesh 'fragile' failed to start again/.test(e.message));
      // Its process is alive: the actor is constructed there again.
      const pid = procs.pids[1];
      await tallies.respawn(1);
      assert.deepEqual((await tallies.get.call()).values(), [3, 3]);
      assert.equal(await tallies.slice({ gpus: 1 }).pid.callOne(), pid);
    }
    await waitForExit(seen);
  });

  it("threads: a rank whose thread ended is started again as a thread", async (t) => {
    const failures = collectFailures(t);
    await using procs = thisHost().spawnProcs({ workers: 3 }, { threads: true });
    const tallies = procs.spawn("threaded", Tally, 5);
    tallies.incr.broadcast();
    assert.deepEqual((await tallies.get.call()).values(), [6, 6, 6]);
    tallies.slice({ workers: 1 }).quit.broadcast();
    const failure = await failures.recv();
    assert.equal(failure.rank, 1);
    assert.match(failure.cause.message, /worker thread \d+ exited with code 3/);
    await tallies.respawn(1);
    assert.deepEqual((await tallies.get.call()).values(), [6, 5, 6]);
    assert.equal((await tallies.slice({ workers: 1 }).env.callOne()).RANK, "1");
    assert.equal(await tallies.slice({ workers: 1 }).pid.callOne(), process.pid, "a thread of this process");
  });

  it("an actor that died in a live process is constructed again in that same process", async (t) => {
    const failures = collectFailures(t);
    let pids: number[];
    {
      await using procs = track(thisHost().spawnProcs({ gpus: 2 }));
      const tallies = procs.spawn("in-place", Tally, 1);
      pids = procs.pids;
      tallies.incr.broadcast();
      tallies.slice({ gpus: 0 }).boom.broadcast();
      assert.match((await failures.recv()).cause.message, /boom under broadcast/);
      await tallies.respawn(0);
      assert.deepEqual((await tallies.get.call()).values(), [1, 2]);
      assert.deepEqual((await tallies.pid.call()).values(), pids);
    }
    await waitForExit(pids);
  });

  it("a packed mesh: both ranks of a killed process come back in one new process", async (t) => {
    const failures = collectFailures(t);
    const seen = new Set<number>();
    {
      await using procs = track(thisHost().spawnProcs({ workers: 4 }, { processes: 2 }));
      const tallies = procs.spawn("packed", Tally, 0);
      for (const pid of procs.pids) seen.add(pid);
      tallies.incr.broadcast();
      const [, pidOfOdd] = (await tallies.pid.call()).values();
      process.kill(pidOfOdd, "SIGKILL");
      assert.deepEqual([(await failures.recv()).rank, (await failures.recv()).rank].sort(), [1, 3]);
      await Promise.all([tallies.respawn(1), tallies.respawn(3)]);
      track(procs);
      for (const pid of procs.pids) seen.add(pid);
      assert.deepEqual((await tallies.get.call()).values(), [1, 0, 1, 0]);
      const pids = (await tallies.pid.call()).values();
      assert.equal(pids[1], pids[3]);
      assert.notEqual(pids[1], pidOfOdd);
    }
    await waitForExit(seen);
  });

  it("the respawned actor keeps the mesh's maxConcurrency", async (t) => {
    const failures = collectFailures(t);
    await using procs = thisHost().spawnProcs({ workers: 1 }, { threads: true });
    const [port, events] = Channel.open<string>();
    const turnstiles = procs[kSpawnWith]({ maxConcurrency: 2 }, "turnstiles", Turnstile, port);
    try {
      turnstiles.fail.broadcast();
      assert.match((await failures.recv()).cause.message, /turnstile failed/);
      await turnstiles.respawn(0);
      // Two calls that each wait for the other to enter: only two at once can finish them.
      assert.deepEqual(await Promise.all([turnstiles.meet.callOne(1, 2), turnstiles.meet.callOne(2, 2)]), [1, 2]);
    } finally {
      events.close();
    }
  });

  it("an owner actor's supervise() can respawn the rank it is told about", async () => {
    const [port, reports] = Channel.open<string>();
    const keeper = thisProc().spawn("keeper", Keeper, port);
    const pids = new Set<number>();
    try {
      for (const pid of await keeper.start.callOne(3)) pids.add(pid);
      assert.deepEqual(await keeper.incrAll.callOne(), [1, 1, 1]);
      process.kill([...pids][1], "SIGKILL");
      assert.equal(await reports.recv(), "respawned kept rank 1");
      for (const pid of await keeper.pids.callOne()) pids.add(pid);
      assert.deepEqual(await keeper.incrAll.callOne(), [2, 1, 2]);
    } finally {
      reports.close();
      await keeper.stopProcs.callOne();
      await keeper.stop();
      await waitForExit(pids);
    }
  });

  describe("refusals", () => {
    it("a running rank, a rank out of range, a caller that is not the owner, a stopped mesh or ProcMesh", async (t) => {
      const failures = collectFailures(t);
      await using procs = thisHost().spawnProcs({ workers: 2 }, { threads: true });
      const tallies = procs.spawn("refused", Tally, 0);
      await using bystander = thisProc().spawn("bystander", Bystander);
      await tallies.initialized;
      await assert.rejects(tallies.respawn(1), (e: Error) => /^rank 1 of mesh 'refused' is running; respawn replaces failed ranks only/.test(e.message));
      for (const bad of [-1, 2, 1.5]) {
        await assert.rejects(
          tallies.respawn(bad),
          (e: Error) => e instanceof RangeError && /mesh 'refused' \{workers: 2\} has ranks 0 to 1; pass one of those/.test(e.message),
        );
      }
      // On a slice, the rank is the slice's.
      await assert.rejects(tallies.slice({ workers: 1 }).respawn(1), RangeError);
      tallies.slice({ workers: 1 }).boom.broadcast();
      assert.equal((await failures.recv()).rank, 1);
      // A handle passed to another actor is not the owner's.
      assert.match(
        await bystander.tryRespawn.callOne(tallies, 1),
        /this handle was passed from another actor; only the mesh's owner \(which spawned it\) may replace its ranks/,
      );
      await tallies.slice({ workers: 1 }).respawn(0); // the owner may, through a slice too
      assert.deepEqual((await tallies.get.call()).values(), [0, 0]);
      await tallies.stop();
      await assert.rejects(tallies.respawn(0), (e: Error) => e instanceof SupervisionError && /the mesh was stopped; spawn a new mesh instead/.test(e.message));
      const again = procs.spawn("again", Tally, 0);
      await again.initialized;
      await procs.stop();
      await assert.rejects(again.respawn(0), (e: Error) => e instanceof SupervisionError && /its ProcMesh was stopped/.test(e.message));
    });

    it("the owner is the spawning actor: the client that holds its mesh may not respawn it", async () => {
      const [port, reports] = Channel.open<string>();
      const keeper = thisProc().spawn("keeper2", Keeper, port);
      const pids = await keeper.start.callOne(1);
      try {
        const kept = await keeper.mesh.callOne();
        await assert.rejects(kept.respawn(0), /this handle was passed from another actor/);
      } finally {
        reports.close();
        await keeper.stopProcs.callOne();
        await keeper.stop();
        await waitForExit(pids);
      }
    });
  });
});
