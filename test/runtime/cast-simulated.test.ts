// Casting at depth 4: 256 simulated hosts (SimulatedJob) with FRAY_CAST_FANOUT=4,
// deep enough that relays forward to relays (README.md, "Casting to many
// processes"). Every host's proc is a Proc of its own, so every relay on the
// way is a distinct process to the runtime.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { SimulatedJob as SimulatedJobClass } from "../../src/launchers.ts";
import type { ActorMesh, ProcMesh } from "../../src/mesh.ts";
import type { Recorder as RecorderClass } from "../fixtures/actors.ts";
import { isAlive, waitForExit } from "../helpers.ts";

process.env.FRAY_METRICS = "1"; // to count the frames the client sends
process.env.FRAY_CAST_FANOUT = "4"; // the hosts inherit it
// 64 hosts share each OS process and 2 cores: behind 10,000 broadcasts a host's heartbeat answer can wait seconds.
process.env.FRAY_HOST_TIMEOUT_MS = "120000";
process.env.FRAY_HEARTBEAT_TIMEOUT_MS = "120000";
const { SimulatedJob } = await import("../../src/launchers.ts");
const { castDepth } = await import("../../src/runtime/calls/cast-tree.ts");
const { framesOut } = await import("../../src/runtime/base/counters.ts");
const { Recorder } = await import("../fixtures/actors.ts");

const HOSTS = 256;
const N = 10_000;
const sent = (kind: string) => framesOut.get(kind)?.n ?? 0;

describe("casting to 256 simulated hosts with fan-out 4", () => {
  let job: SimulatedJobClass;
  let pids: number[] = [];
  let procs: ProcMesh;
  before(async () => {
    job = new SimulatedJob({ meshes: { hosts: HOSTS }, processes: 4 });
    procs = (await job.state()).hosts.spawnProcs();
    pids = job.pids;
    await procs.initialized;
  });
  after(async () => {
    await procs?.stop();
    await job.kill();
    await waitForExit(pids);
    assert.deepEqual(pids.filter(isAlive), []);
  });

  async function connected(name: string): Promise<ActorMesh<RecorderClass>> {
    const recorders = procs.spawn(name, Recorder);
    await recorders.count.call(); // connects the client to every host: casts go through relays only to connected ones
    await recorders.count.call(); // through the tree: connects each relay to the heads it forwards to
    return recorders;
  }

  it(`${N.toLocaleString("en")} numbered broadcasts reach every actor exactly once and in order, through a tree of depth ${castDepth(HOSTS, 4)}`, async () => {
    assert.equal(castDepth(HOSTS, 4), 4);
    const recorders = await connected("all");
    const castBefore = sent("cast");
    for (let i = 0; i < N; i++) {
      recorders.record.broadcast(i);
      // A call down the same tree every 1,000: hosts 64 to a process on 2 cores never fall seconds behind.
      if (i % 1_000 === 999) assert.deepEqual((await recorders.count.call()).values(), Array(HOSTS).fill(i + 1));
    }
    assert.deepEqual((await recorders.inOrder.call(N)).values(), Array(HOSTS).fill(true));
    assert.equal(sent("cast") - castBefore, 4 * (N + N / 1_000 + 1)); // the client sent each call to the 4 relays only
  });

  it("direct messages interleaved with the broadcasts keep FIFO, each arriving once", async () => {
    const recorders = await connected("mixed");
    const expected: number[][] = Array.from({ length: HOSTS }, () => []);
    for (let i = 0; i < N; i++) {
      const one = i % 10 === 3 ? (i * 37) % HOSTS : -1; // every tenth goes straight to one host, relays included
      if (one >= 0) recorders.slice({ hosts: one }).record.broadcast(i);
      else recorders.record.broadcast(i);
      for (let r = 0; r < HOSTS; r++) if (one < 0 || one === r) expected[r].push(i);
      if (i % 1_000 === 999) await recorders.count.call();
    }
    const lists = (await recorders.list.call()).values();
    lists.forEach((list, r) => assert.deepEqual(list, expected[r], `host ${r}`));
  });
});
