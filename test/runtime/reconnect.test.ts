// A TCP connection between two processes that both live on, dropped (reset, as `ss -K` or a middlebox resets one):
// the side that dialed it dials again, and every call in flight across it completes once, in order, with no worker
// replaced. A peer that really died is still taken for lost at once. The processes talk over TCP because the test
// sets FRAY_ADVERTISE_HOST; the connection is dropped by the fault point `frame-received/msg=drop:1` in the workers.
import assert from "node:assert/strict";
import { after, before, describe, it, type TestContext } from "node:test";
import { setUnhandledFaultHook, thisHost, type ProcMesh, type UnhandledFaultHook } from "../../src/mesh.ts";
import { Tally } from "../fixtures/reconnect-actors.ts";
import { track, waitForExit } from "../helpers.ts";

const CALLS = 300;

describe("a TCP connection dropped between two live processes", () => {
  let previousHook: UnhandledFaultHook;
  before(() => {
    process.env.FRAY_ADVERTISE_HOST = "127.0.0.1"; // the client, and so its workers, listen on TCP
    // A reconnect that waited out its bound (or a lost worker waiting for its heartbeat) would hang the test past its timeout.
    process.env.FRAY_RECONNECT_MS = "120000";
    process.env.FRAY_HEARTBEAT_TIMEOUT_MS = "120000";
    previousHook = setUnhandledFaultHook(() => {}); // the test kills a worker on purpose
  });
  after(() => {
    setUnhandledFaultHook(previousHook);
    delete process.env.FRAY_ADVERTISE_HOST;
    delete process.env.FRAY_RECONNECT_MS;
    delete process.env.FRAY_HEARTBEAT_TIMEOUT_MS;
  });

  /** Worker processes armed with `faults` (the test's own process stays unarmed: it read the variable at its start). */
  function workers(t: TestContext, n: number, faults?: string): ProcMesh {
    if (faults) process.env.FRAY_FAULT_POINTS = faults;
    try {
      const procs = track(thisHost().spawnProcs({ workers: n }));
      t.after(() => procs.stop());
      return procs;
    } finally {
      delete process.env.FRAY_FAULT_POINTS;
    }
  }

  it("the worker drops its connection to the driver as a call arrives: it dials again, every call completes once, in order", { timeout: 60_000 }, async (t) => {
    const procs = workers(t, 1, "frame-received/msg=drop:2");
    const tallies = procs.spawn("tallies", Tally);
    await tallies.initialized;
    const pid = procs.pids[0];
    const answers = await Promise.all(Array.from({ length: CALLS }, (_, i) => tallies.take.callOne(i)));
    assert.deepEqual(
      answers,
      Array.from({ length: CALLS }, (_, i) => 2 * i),
    );
    assert.equal(await tallies.inOrder.callOne(CALLS), true, "each call taken once, in the order sent");
    assert.equal(await tallies.pid.callOne(), pid, "the same worker process: none was replaced");
  });

  it("the dialed side drops it: it waits for the dial again; calls between two workers (with attachments) complete once", { timeout: 60_000 }, async (t) => {
    // Rank 0 calls rank 1, so rank 0 dials rank 1; rank 1 drops that connection as rank 0's first call arrives.
    // (Rank 0 drops its driver's connection as the driver's `relay` call arrives, too.)
    const procs = workers(t, 2, "frame-received/msg=drop:1");
    const tallies = procs.spawn("tallies", Tally);
    await tallies.initialized;
    const pids = [...procs.pids];
    const first = tallies.slice({ workers: 0 });
    const second = tallies.slice({ workers: 1 });
    const answers = await first.relay.callOne(second, CALLS);
    assert.deepEqual(
      answers,
      Array.from({ length: CALLS }, (_, i) => 2 * i + (i % 7)),
    );
    assert.equal(await second.inOrder.callOne(CALLS), true, "each call taken once, in the order sent");
    assert.deepEqual((await tallies.pid.call()).values(), pids, "the same worker processes: none was replaced");
  });

  /** Two workers, rank 0 having dialed rank 1 (a relay of two calls crossed their connection). */
  async function dialedPair(t: TestContext) {
    const procs = workers(t, 2);
    const tallies = procs.spawn("tallies", Tally);
    await tallies.initialized;
    const first = tallies.slice({ workers: 0 });
    const second = tallies.slice({ workers: 1 });
    assert.equal((await first.relay.callOne(second, 2)).length, 2, "rank 0 has dialed rank 1");
    return { procs, first, second };
  }

  it("a peer that really died is still lost at once: calls to it reject, they do not wait for a dial again", { timeout: 60_000 }, async (t) => {
    const { procs, first, second } = await dialedPair(t);
    const victim = procs.pids[1]!;
    const relayed = first.relay.callOne(second, CALLS);
    process.kill(victim, "SIGKILL");
    await assert.rejects(relayed, (e: Error) => e.name === "SupervisionError" || e.name === "ActorError");
    await waitForExit([victim]);
  });

  it("a dialing peer that really died is lost at once by the side it dialed, which does not wait for it to dial again", { timeout: 60_000 }, async (t) => {
    const { procs, first, second } = await dialedPair(t);
    const victim = procs.pids[0]!;
    const relayed = second.relay.callOne(first, CALLS); // over the connection rank 0 dialed
    process.kill(victim, "SIGKILL");
    await assert.rejects(relayed, (e: Error) => e.name === "SupervisionError" || e.name === "ActorError");
    await waitForExit([victim]);
  });
});
