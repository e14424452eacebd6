// Supervision: failures reach the owner's supervise() once per failed rank,
// calls to dead ranks reject with SupervisionError, the rest keep working.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ActorError, Channel, SupervisionError, setUnhandledFaultHook, thisProc, type MeshFailure } from "../../src/mesh.ts";
import { Guardian, type FailureSummary } from "../fixtures/supervision-actors.ts";
import { isAlive, waitForExit } from "../helpers.ts";

/** A Guardian in this process owning `n` worker processes, and the stream of failures it supervises. */
async function guarded(n: number) {
  const [port, failures] = Channel.open<FailureSummary>();
  const guardian = thisProc().spawn(`guardian-${Math.random().toString(36).slice(2, 7)}`, Guardian, port);
  const { workers, pids } = await guardian.start.callOne(n);
  return { guardian, workers, pids, failures };
}

describe("supervision", () => {
  it("a throw under call rejects the caller; the actor survives and nobody is told", async () => {
    const { guardian, workers, failures } = await guarded(2);
    try {
      await assert.rejects(workers.slice({ gpus: 0 }).fail.callOne(), (e: Error) => e instanceof ActorError && /fail under call/.test(e.message));
      assert.equal(await workers.slice({ gpus: 0 }).ping.callOne(), 0);
      assert.deepEqual(await guardian.failuresSeen.callOne(), []);
    } finally {
      failures.close();
      await guardian.stopProcs.callOne();
    }
  });

  it("a throw under broadcast kills the actor and reaches supervise() once", async () => {
    const { guardian, workers, failures } = await guarded(2);
    try {
      workers.slice({ gpus: 1 }).boom.broadcast();
      const failure = await failures.recv();
      assert.deepEqual(failure, { meshName: "workers", rank: 1, cause: "boom under broadcast" });
      await assert.rejects(workers.slice({ gpus: 1 }).ping.callOne(), (e: Error) => e instanceof SupervisionError && /boom under broadcast/.test(e.message));
      assert.equal(await workers.slice({ gpus: 0 }).ping.callOne(), 0);
      assert.equal((await guardian.failuresSeen.callOne()).length, 1);
    } finally {
      failures.close();
      await guardian.stopProcs.callOne();
    }
  });

  it("abort(reason) kills the actor, rejects its running calls and reaches supervise() with the reason", async () => {
    const { guardian, workers, failures } = await guarded(1);
    try {
      const running = workers.hang.callOne(); // a concurrent call that would never answer by itself
      workers.abortMe.broadcast("state is corrupt");
      await assert.rejects(running, (e: Error) => e instanceof SupervisionError && /aborted: state is corrupt/.test(e.message));
      assert.deepEqual(await failures.recv(), { meshName: "workers", rank: 0, cause: "aborted: state is corrupt" });
      await assert.rejects(workers.ping.callOne(), SupervisionError);
    } finally {
      failures.close();
      await guardian.stopProcs.callOne();
    }
  });

  it("supervision errors through a one-rank slice name the rank and its coords in the spawned mesh", async () => {
    const { guardian, workers, pids, failures } = await guarded(3);
    try {
      // Known here (a lost process) ...
      const inflight = workers.slice({ gpus: 2 }).hang.callOne();
      process.kill(pids[2], "SIGKILL");
      await assert.rejects(
        inflight,
        (e: Error) =>
          e instanceof SupervisionError && /^Worker\.hang on rank 2 \{gpus: 2\} of mesh workers cannot complete: .*killed by SIGKILL/.test(e.message),
      );
      assert.equal((await failures.recv()).rank, 2);
      // ... and answered by the dead actor's process (the call is sent before the failure is reported back).
      const one = workers.slice({ gpus: 1 });
      one.abortMe.broadcast("corrupt");
      await assert.rejects(
        one.ping.callOne(),
        (e: Error) => e instanceof SupervisionError && /^Worker\.ping on rank 1 \{gpus: 1\} of mesh workers: .*aborted: corrupt/.test(e.message),
      );
    } finally {
      failures.close();
      await guardian.stopProcs.callOne();
    }
  });

  it("kill -9 of one process of 4: in-flight calls reject naming the signal, supervise() once, the rest answer, spawning again works", async () => {
    const { guardian, workers, pids, failures } = await guarded(4);
    try {
      const inflight = [workers.slice({ gpus: 2 }).hang.callOne(), workers.hang.call()];
      process.kill(pids[2], "SIGKILL");
      for (const call of inflight) {
        await assert.rejects(call, (e: Error) => e instanceof SupervisionError && /killed by SIGKILL/.test(e.message));
      }
      assert.deepEqual(await failures.recv(), { meshName: "workers", rank: 2, cause: `worker process ${pids[2]} was killed by SIGKILL` });
      await assert.rejects(workers.slice({ gpus: 2 }).ping.callOne(), (e: Error) => e instanceof SupervisionError && /SIGKILL/.test(e.message));
      const survivors = await Promise.all([0, 1, 3].map((r) => workers.slice({ gpus: r }).ping.callOne()));
      assert.deepEqual(survivors, [0, 1, 3]);
      assert.deepEqual(
        await workers
          .slice({ gpus: { start: 0, stop: 2 } })
          .ping.call()
          .then((v) => v.values()),
        [0, 1],
      );
      assert.equal(await guardian.spawnAgain.callOne(), 0);
      assert.equal((await guardian.failuresSeen.callOne()).length, 1);
    } finally {
      failures.close();
      await guardian.stopProcs.callOne();
    }
  });

  it("a stopped process (SIGSTOP) is found by heartbeat; its calls reject", async (t) => {
    process.env.FRAY_HEARTBEAT_TIMEOUT_MS = "3000";
    process.env.FRAY_HEARTBEAT_INTERVAL_MS = "100";
    t.after(() => {
      delete process.env.FRAY_HEARTBEAT_TIMEOUT_MS;
      delete process.env.FRAY_HEARTBEAT_INTERVAL_MS;
    });
    const { guardian, workers, pids, failures } = await guarded(2);
    try {
      process.kill(pids[0], "SIGSTOP");
      await assert.rejects(
        workers.slice({ gpus: 0 }).ping.callOne(),
        (e: Error) => e instanceof SupervisionError && /stopped responding: no heartbeat/.test(e.message),
      );
      const failure = await failures.recv();
      assert.equal(failure.rank, 0);
      assert.match(failure.cause, /stopped responding/);
      assert.equal(await workers.slice({ gpus: 1 }).ping.callOne(), 1);
      await waitForExit([pids[0]]);
    } finally {
      failures.close();
      await guardian.stopProcs.callOne();
    }
  });

  it("stopping worker processes on purpose is not a failure", async () => {
    const { guardian, workers, pids, failures } = await guarded(2);
    await guardian.stopProcs.callOne();
    assert.deepEqual(pids.filter(isAlive), []);
    await assert.rejects(workers.ping.call(), (e: Error) => e instanceof SupervisionError && /stopped/.test(e.message));
    assert.deepEqual(await guardian.failuresSeen.callOne(), []);
    failures.close();
  });

  it("an unhandled failure goes up to the owner's owner, and at the root to the fault hook", async (t) => {
    const seen: MeshFailure[] = [];
    const [reported, arrived] = Channel.open<void>();
    const previous = setUnhandledFaultHook((f) => {
      seen.push(f);
      reported.send();
    });
    t.after(() => setUnhandledFaultHook(previous));
    const [port, failures] = Channel.open<FailureSummary>();
    const guardian = thisProc().spawn("careless", Guardian, port, false); // supervise() returns false
    const { workers } = await guardian.start.callOne(1);
    try {
      workers.boom.broadcast();
      assert.equal((await failures.recv()).cause, "boom under broadcast");
      await arrived.recv();
      assert.equal(seen.length, 1);
      assert.equal(seen[0].meshName, "careless");
      assert.match(seen[0].cause.message, /unhandled: mesh 'workers' rank 0 failed: Error: boom under broadcast/);
      await assert.rejects(guardian.failuresSeen.callOne(), SupervisionError);
    } finally {
      failures.close();
      arrived.close();
    }
  });
});

describe("a throw inside supervise()", () => {
  it("becomes a new failure, chained to the first, for the owner's owner", async (t) => {
    const seen: MeshFailure[] = [];
    const [reported, arrived] = Channel.open<void>();
    const previous = setUnhandledFaultHook((f) => {
      seen.push(f);
      reported.send();
    });
    t.after(() => setUnhandledFaultHook(previous));
    const [port, failures] = Channel.open<FailureSummary>();
    const guardian = thisProc().spawn("thrower", Guardian, port, "throw");
    const { workers } = await guardian.start.callOne(1);
    try {
      workers.boom.broadcast();
      await failures.recv();
      await arrived.recv();
      assert.equal(seen[0].meshName, "thrower");
      const cause = seen[0].cause;
      assert.match(cause.message, /supervise\(\) of Guardian threw while handling: mesh 'workers' rank 0 failed: Error: boom under broadcast/);
      assert.equal((cause.cause as Error).message, "supervise() itself failed");
    } finally {
      failures.close();
      arrived.close();
    }
  });
});
