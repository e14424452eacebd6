// Casting down a tree of relays (call-sender.ts): with FRAY_CAST_FANOUT=3, a
// call to 13 processes goes to 3 relays, which forward to theirs: depth 3.
// Every destination runs each call exactly once and in order, mixing cast and
// straight calls; a relay's death fails only its own ranks.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { MeshFailure, ProcMesh } from "../../src/mesh.ts";
import { castDepth, subtrees } from "../../src/runtime/calls/cast-tree.ts";
import { isAlive, track, waitForExit } from "../helpers.ts";

// Set before the runtime loads: metrics (to count the frames the client sends) and the fan-out, which workers inherit.
process.env.FRAY_METRICS = "1";
process.env.FRAY_CAST_FANOUT = "3";
const { Channel, SupervisionError, setUnhandledFaultHook, thisHost } = await import("../../src/mesh.ts");
const { framesOut } = await import("../../src/runtime/base/counters.ts");
const { Recorder } = await import("../fixtures/actors.ts");
const { Tally } = await import("./cast-tree-actors.ts");

const HOSTS = 13;
const N = 10_000;
const sent = (kind: string) => framesOut.get(kind)?.n ?? 0;

describe("casting tree", () => {
  let procs: ProcMesh;
  before(async () => {
    procs = track(thisHost().spawnProcs({ hosts: HOSTS }));
    await procs.initialized;
  });
  after(() => procs.stop());

  it("splits into runs of near-equal length, every item once, depth 3 for 13 with fan-out 3 and 4 for 256 with 4", () => {
    const items = Array.from({ length: HOSTS }, (_, i) => i);
    const runs = subtrees(items, 3);
    assert.deepEqual(
      runs.map((r) => r.length),
      [5, 4, 4],
    );
    assert.deepEqual(runs.flat(), items);
    assert.equal(castDepth(HOSTS, 3), 3);
    assert.equal(castDepth(256, 4), 4);
    assert.equal(castDepth(16, 16), 1);
  });

  it(`${N.toLocaleString("en")} numbered broadcasts arrive exactly once and in order at every rank, the client sending 3 frames each`, async () => {
    const recorders = procs.spawn("all", Recorder);
    await recorders.initialized;
    await recorders.count.call(); // connects the client to every process: casts go through relays only to connected ones
    const [msgBefore, castBefore] = [sent("msg"), sent("cast")];
    for (let i = 0; i < N; i++) recorders.record.broadcast(i);
    assert.deepEqual((await recorders.inOrder.call(N)).values(), Array(HOSTS).fill(true));
    // Each broadcast and the inOrder call went to the 3 relays; none went straight to the other 10 processes.
    assert.equal(sent("cast") - castBefore, 3 * (N + 1));
    assert.equal(sent("msg") - msgBefore, 0);
  });

  it("straight calls to one rank interleaved with casts to all keep FIFO, each arriving once", async () => {
    const recorders = procs.spawn("mixed", Recorder);
    await recorders.count.call();
    const expected: number[][] = Array.from({ length: HOSTS }, () => []);
    for (let i = 0; i < N; i++) {
      const one = i % 10 === 3 ? (i * 7) % HOSTS : -1; // every tenth goes straight to one rank, relays included
      if (one >= 0) recorders.slice({ hosts: one }).record.broadcast(i);
      else recorders.record.broadcast(i);
      for (let r = 0; r < HOSTS; r++) if (one < 0 || one === r) expected[r].push(i);
    }
    assert.deepEqual((await recorders.list.call()).values(), expected);
  });

  it("a slice casts only to its members", async () => {
    const recorders = procs.spawn("sliced", Recorder);
    await recorders.count.call();
    const members = recorders.slice({ hosts: { start: 2, stop: 11 } }); // 9 processes: a tree of depth 2
    for (let i = 0; i < 1_000; i++) members.record.broadcast(i);
    const counts = (await recorders.count.call()).values();
    assert.deepEqual(
      counts,
      Array.from({ length: HOSTS }, (_, r) => (r >= 2 && r < 11 ? 1_000 : 0)),
    );
  });

  it("stopping a mesh right after casting to it runs every cast first", async () => {
    const [port, stopped] = Channel.open<number>();
    const tallies = procs.spawn("tallies", Tally, port);
    await tallies.initialized;
    for (let i = 0; i < 1_000; i++) tallies.record.broadcast(i);
    await tallies.stop();
    const counts: number[] = [];
    for (let r = 0; r < HOSTS; r++) counts.push(await stopped.recv());
    stopped.close();
    assert.deepEqual(counts, Array(HOSTS).fill(1_000));
  });

  it("a relay killed mid-stream fails only its own rank; the ranks below it get every broadcast once, in order", async () => {
    await using mesh = track(thisHost().spawnProcs({ hosts: HOSTS }));
    const failures: MeshFailure[] = [];
    const previous = setUnhandledFaultHook((f) => failures.push(f));
    try {
      const recorders = mesh.spawn("relayed", Recorder);
      await recorders.count.call();
      const relay = 5; // the head of the second run of [5, 4, 4]: it forwards to ranks 6, 7 and 8
      const pid = mesh.pids[relay];
      for (let i = 0; i < N; i++) {
        recorders.record.broadcast(i);
        if (i === N / 2) process.kill(pid, "SIGKILL");
        if (i % 500 === 0) await new Promise((r) => setImmediate(r)); // let frames go out (and the death come in) mid-stream
      }
      await waitForExit([pid]);
      const survivors = [recorders.slice({ hosts: { start: 0, stop: relay } }), recorders.slice({ hosts: { start: relay + 1 } })];
      for (const part of survivors) assert.ok((await part.inOrder.call(N)).values().every(Boolean));
      await assert.rejects(recorders.slice({ hosts: relay }).count.callOne(), (e: Error) => e instanceof SupervisionError && /SIGKILL/.test(e.message));
      assert.deepEqual(
        failures.map((f) => f.rank),
        [relay],
      );
      assert.ok(!isAlive(pid));
    } finally {
      setUnhandledFaultHook(previous);
    }
  });
});
