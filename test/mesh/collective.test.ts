// Mesh collectives (README.md, "Collectives"): a data-parallel step where each rank holds
// different gradients, on 4 processes, on 4 threads, and on a {hosts: 2, gpus: 2} mesh packed
// into 2 processes (ranks of one process exchange in memory); mismatched calls;
// kill -9 of a rank mid-allReduce.
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import {
  Channel,
  collective,
  setUnhandledFaultHook,
  thisHost,
  type ActorMesh,
  type CollectivePath,
  type CollectivePathStats,
  type ProcMesh,
  type UnhandledFaultHook,
} from "../../src/mesh.ts";
import { fold } from "../../src/mesh/collectives/reduce-op.ts";
import { simdChunks } from "../../src/mesh/collectives/simd-fold.ts";
import { CollectiveInbox } from "../../src/runtime/bulk/collective-inbox.ts";
import { hostIdentity, pathTo } from "../../src/runtime/bulk/collective-outbox.ts";
import { gradient, outboxFilesOf, Trainer } from "../fixtures/collective-actors.ts";
import { track } from "../helpers.ts";

const L = 1000;
/** (i mod 5 + 1) × k for every element: what the ops give on gradient() arrays. */
const times = (k: number, length = L) => gradient(0, length).map((v) => v * k);
const concat = (...parts: Float32Array[]) => {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
};

/** The /dev/shm entries collective outboxes would leave (they are unlinked as soon as made). */
const outboxEntries = () => readdirSync("/dev/shm").filter((f) => f.startsWith("fray-coll-"));

/**
 * Runs the collective tests on the mesh `start` makes, whose ranks in different procs exchange
 * large arrays by `path`; `env` is set while the mesh starts (its processes inherit it).
 */
function dataParallel(
  title: string,
  start: () => ProcMesh,
  sizes: Record<string, number>,
  path: CollectivePath,
  env: Record<string, string> = {},
  more?: (mesh: () => ActorMesh<Trainer>) => void,
) {
  describe(title, () => {
    let procs: ProcMesh;
    let trainers: ActorMesh<Trainer>;
    before(() => {
      const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
      Object.assign(process.env, env);
      try {
        procs = track(start());
      } finally {
        for (const [k, v] of Object.entries(saved))
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
      }
      trainers = procs.spawn("trainers", Trainer);
    });
    after(() => procs.stop());

    it(`moves large arrays between procs by ${path}, small ones in frames`, async () => {
      await trainers.allReduce.call("sum", 4); // the group's first call: the ranks learn their paths
      const delta = async (run: () => Promise<unknown>) => {
        const before = (await trainers.pathStats.call()).values();
        await run();
        const after = (await trainers.pathStats.call()).values();
        const paths = Object.keys(after[0]) as CollectivePath[];
        return after.map((a: CollectivePathStats, r) => Object.fromEntries(paths.map((p) => [p, a[p].pieces - before[r][p].pieces])));
      };
      const large = await delta(() => trainers.allReduceIs.call(1 << 18, 10));
      // The counts are per process (per thread for threads), whose ranks each send a piece to every other rank per round.
      const perProc = procs.pids.length === 2 ? 2 : 1;
      const cross = 4 - perProc; // ranks in other procs
      for (const d of large)
        assert.deepEqual(d, { local: perProc * 2 * (3 - cross), sharedArrayBuffer: 0, sharedMemory: 0, socket: 0, [path]: perProc * 2 * cross });
      const small = await delta(() => trainers.allGather.call(8));
      for (const d of small) assert.deepEqual(d, { local: perProc * (3 - cross), sharedArrayBuffer: 0, sharedMemory: 0, socket: perProc * cross });
      assert.deepEqual(outboxEntries(), []); // outboxes are unlinked as soon as made
    });

    it("allReduce sum, avg, max, min and prod give the exact expected arrays on every rank", async () => {
      assert.deepEqual(procs.sizes, sizes);
      // Ranks hold 1×, 2×, 3×, 4× the pattern.
      for (const [op, k] of [
        ["sum", 10],
        ["avg", 2.5],
        ["max", 4],
        ["min", 1],
      ] as const) {
        for (const got of (await trainers.allReduce.call(op, L)).values()) assert.deepEqual(got, times(k), op);
      }
      const prod = gradient(0, L).map((v) => 24 * v ** 4);
      for (const got of (await trainers.allReduce.call("prod", L)).values()) assert.deepEqual(got, prod);
    });

    it("a large allReduce (1M floats, reduce-scatter + all-gather) is exact on every rank", async () => {
      assert.deepEqual((await trainers.allReduceIs.call(1 << 20, 10)).values(), [true, true, true, true]);
      // Lengths the group does not divide: uneven blocks.
      for (const got of (await trainers.allReduce.call("sum", 100_003)).values()) assert.deepEqual(got, times(10, 100_003));
    });

    it("allGather, reduceScatter, broadcast, reduce and barrier", async () => {
      const g = [0, 1, 2, 3].map((r) => gradient(r, 8));
      for (const got of (await trainers.allGather.call(8)).values()) assert.deepEqual(got, concat(...g));
      const sum = times(10, 8);
      assert.deepEqual(
        (await trainers.reduceScatter.call(8)).values(),
        [0, 1, 2, 3].map((r) => sum.slice(2 * r, 2 * r + 2)),
      );
      for (const got of (await trainers.broadcast.call(2, 8)).values()) assert.deepEqual(got, g[2]);
      assert.deepEqual((await trainers.reduce.call(1, 8)).values(), [g[0], times(4, 8), g[2], g[3]]);
      assert.deepEqual((await trainers.barrier.call()).values(), [0, 1, 2, 3]);
    });

    it("mismatched lengths fail on every rank, naming the ranks' calls", async () => {
      const messages = (await trainers.mismatched.call([4, 4, 5, 4])).values();
      assert.equal(messages.length, 4);
      for (const m of messages)
        assert.match(
          m,
          /^RangeError: collective\.allReduce: the ranks of the group called different collectives \(.*rank 2 .*Float32Array\[5\].*\); every rank must pass the same kind of typed array, length/,
        );
      // Every rank fails (none hangs): the mesh still answers the next collective.
      for (const got of (await trainers.allReduce.call("sum", L)).values()) assert.deepEqual(got, times(10));
    });

    more?.(() => trainers);
  });
}

dataParallel("4 ranks {gpus: 4}, one process each", () => thisHost().spawnProcs({ gpus: 4 }), { gpus: 4 }, "sharedMemory");
dataParallel("4 ranks {gpus: 4}, one process each, FRAY_COLLECTIVE_SAME_HOST=socket", () => thisHost().spawnProcs({ gpus: 4 }), { gpus: 4 }, "socket", {
  FRAY_COLLECTIVE_SAME_HOST: "socket",
});
dataParallel("4 ranks {gpus: 4} on worker threads", () => thisHost().spawnProcs({ gpus: 4 }, { threads: true }), { gpus: 4 }, "sharedArrayBuffer");
dataParallel(
  "{hosts: 2, gpus: 2} packed into 2 processes",
  () => thisHost().spawnProcs({ hosts: 2, gpus: 2 }, { processes: 2 }),
  { hosts: 2, gpus: 2 },
  "sharedMemory",
  {},
  (trainers) => {
    it('dims: ["gpus"] reduces within each host only', async () => {
      // Host 0 holds ranks 1× and 2×, host 1 ranks 3× and 4×.
      const sums = (await trainers().allReduce.call("sum", L, ["gpus"])).values();
      assert.deepEqual(sums, [times(3), times(3), times(7), times(7)]);
      const large = (await trainers().allReduce.call("max", 200_001, ["gpus"])).values();
      assert.deepEqual(large, [times(2, 200_001), times(2, 200_001), times(4, 200_001), times(4, 200_001)]);
      const across = (await trainers().allReduce.call("sum", L, ["hosts"])).values();
      assert.deepEqual(across, [times(4), times(6), times(4), times(6)]);
      const g = [0, 1, 2, 3].map((r) => gradient(r, 4));
      assert.deepEqual((await trainers().allGather.call(4, ["gpus"])).values(), [
        concat(g[0], g[1]),
        concat(g[0], g[1]),
        concat(g[2], g[3]),
        concat(g[2], g[3]),
      ]);
      assert.deepEqual((await trainers().broadcast.call(1, 4, ["gpus"])).values(), [g[1], g[1], g[3], g[3]]);
      assert.deepEqual((await trainers().barrier.call({ dims: ["gpus"] })).values(), [0, 1, 2, 3]);
    });

    it("a message sent to a slice runs the collective among that slice's ranks", async () => {
      // Message ranks 0 and 1 of each slice hold 1× and 2×.
      const [host0, host1, odd] = await Promise.all([
        trainers().slice({ hosts: 0 }).allReduce.call("sum", L),
        trainers().slice({ hosts: 1 }).allReduce.call("sum", L),
        trainers().slice({ gpus: 1 }).allReduce.call("max", 100_000),
      ]);
      for (const got of [...host0.values(), ...host1.values()]) assert.deepEqual(got, times(3));
      for (const got of odd.values()) assert.deepEqual(got, times(2, 100_000));
    });

    it("dims naming no dimension of the mesh is an error that lists the dimensions", async () => {
      await assert.rejects(
        trainers().allReduce.call("sum", 4, ["cards"]),
        /dims names 'cards', which is not a dimension of the mesh .*; give some of: hosts, gpus/,
      );
    });
  },
);

describe("collectives outside an endpoint", () => {
  it("reject, saying where they must be called", async () => {
    await assert.rejects(collective.allReduce(new Float32Array(4)), /must be called inside an endpoint that was called on every rank of a mesh/);
    await assert.rejects(collective.allReduce([1, 2] as never), /needs a typed array/);
    await assert.rejects(collective.allReduce(new Float32Array(4), { op: "mean" as never }), /unknown op "mean"; give one of "sum"/);
  });
});

describe("kill -9 of a rank mid-allReduce", () => {
  let procs: ProcMesh;
  let previous: UnhandledFaultHook;
  before(() => {
    previous = setUnhandledFaultHook(() => {}); // the owner (this test) expects the death
    procs = track(thisHost().spawnProcs({ gpus: 4 }));
  });
  after(async () => {
    await procs.stop();
    setUnhandledFaultHook(previous);
  });

  it("every other rank's allReduce rejects with SupervisionError naming the dead rank", async () => {
    const trainers = procs.spawn("trainers", Trainer);
    await trainers.allReduce.call("sum", 4); // the ranks are connected, as in any training loop
    const [enteredPort, entered] = Channel.open<number>();
    const [outcomesPort, outcomes] = Channel.open<[number, string, boolean, string]>();
    try {
      trainers.allReduceWithout.broadcast(2, enteredPort, outcomesPort, 1 << 20);
      for (let i = 0; i < 3; i++) await entered.recv();
      process.kill(procs.pids[2], "SIGKILL");
      const got = [await outcomes.recv(), await outcomes.recv(), await outcomes.recv()].sort((a, b) => a[0] - b[0]);
      assert.deepEqual(
        got.map(([rank, name, isSupervision]) => [rank, name, isSupervision]),
        [0, 1, 3].map((r) => [r, "SupervisionError", true]),
      );
      for (const [, , , message] of got) assert.match(message, /^collective\.allReduce cannot complete: rank 2 \{gpus: 2\} of mesh trainers is gone: /);
      // The survivors staged their pieces in /dev/shm outboxes, which are unlinked: nothing to clean up, even after kill -9.
      for (const r of [0, 1, 3]) assert.match(outboxFilesOf(procs.pids[r]).join(), /^\/dev\/shm\/fray-coll-[0-9a-f]{24} \(deleted\)$/);
      assert.deepEqual(outboxEntries(), []);
      await procs.stop();
      assert.deepEqual(outboxEntries(), []);
    } finally {
      entered.close();
      outcomes.close();
    }
  });
});

describe("a rank that never joins", () => {
  let procs: ProcMesh;
  const saved = process.env.FRAY_COLLECTIVE_TIMEOUT_MS;
  before(() => {
    process.env.FRAY_COLLECTIVE_TIMEOUT_MS = "300"; // the workers inherit it
    procs = track(thisHost().spawnProcs({ gpus: 4 }));
  });
  after(async () => {
    if (saved === undefined) delete process.env.FRAY_COLLECTIVE_TIMEOUT_MS;
    else process.env.FRAY_COLLECTIVE_TIMEOUT_MS = saved;
    await procs.stop();
  });

  it("makes the others' calls reject after FRAY_COLLECTIVE_TIMEOUT_MS, naming the setting", async () => {
    const trainers = procs.spawn("trainers", Trainer);
    const [enteredPort, entered] = Channel.open<number>();
    const [outcomesPort, outcomes] = Channel.open<[number, string, boolean, string]>();
    try {
      trainers.allReduceWithout.broadcast(1, enteredPort, outcomesPort, 16);
      const got = [await outcomes.recv(), await outcomes.recv(), await outcomes.recv()].sort((a, b) => a[0] - b[0]);
      assert.deepEqual(
        got.map(([rank, name]) => [rank, name]),
        [
          [0, "Error"],
          [2, "Error"],
          [3, "Error"],
        ],
      );
      for (const [, , , message] of got)
        assert.match(message, /^collective\.allReduce timed out after 300 ms waiting for its peers \(FRAY_COLLECTIVE_TIMEOUT_MS=300\)/);
    } finally {
      entered.close();
      outcomes.close();
    }
  });

  it("times out the same way when the others' pieces wait in shared memory", async () => {
    const trainers = procs.spawn("late", Trainer);
    await trainers.initialized; // so the first call's ranks arrive well within the 300 ms
    await trainers.allReduce.call("sum", 4); // every rank joins the first call
    const [enteredPort, entered] = Channel.open<number>();
    const [outcomesPort, outcomes] = Channel.open<[number, string, boolean, string]>();
    try {
      trainers.allReduceWithout.broadcast(1, enteredPort, outcomesPort, 1 << 20);
      const got = [await outcomes.recv(), await outcomes.recv(), await outcomes.recv()].sort((a, b) => a[0] - b[0]);
      for (const [, , , message] of got) assert.match(message, /^collective\.allReduce timed out after 300 ms waiting for its peers/);
      const sent = (await trainers.pathStats.call()).values();
      for (const r of [0, 2, 3]) assert.equal(sent[r].sharedMemory.pieces, 3, `rank ${r} staged its reduce-scatter pieces in shared memory`);
    } finally {
      entered.close();
      outcomes.close();
    }
  });
});

describe("CollectiveInbox", () => {
  it("hands a piece to its rank whichever comes first, and drops the late pieces of an abandoned collective", () => {
    const inbox = new CollectiveInbox({ route: () => {} });
    const got: unknown[] = [];
    inbox.deliver("m/*#0.a.1>0", "early");
    inbox.take("m/*#0.a.1>0", (p) => got.push(p));
    inbox.take("m/*#0.a.2>0", (p) => got.push(p));
    inbox.deliver("m/*#0.a.2>0", "late");
    assert.deepEqual(got, ["early", "late"]);
    // Rank 0 gave up on call 1: its pieces are dropped, rank 10's and call 10's are not.
    inbox.take("m/*#1.a.3>0", (p) => got.push(p));
    inbox.abandon("m/*#1.", ">0");
    for (const tag of ["m/*#1.a.3>0", "m/*#1.b.2>0", "m/*#1.a.3>10", "m/*#10.a.3>0"]) inbox.deliver(tag, tag);
    inbox.take("m/*#1.b.2>0", (p) => got.push(p));
    inbox.take("m/*#1.a.3>10", (p) => got.push(p));
    inbox.take("m/*#10.a.3>0", (p) => got.push(p));
    assert.deepEqual(got, ["early", "late", "m/*#1.a.3>10", "m/*#10.a.3>0"]);
  });
});

describe("SIMD folds", () => {
  it("give bit-identical results to the JS loop for every op on float32 and float64, NaN and ±0 included", () => {
    const bytes = 128 * 1024;
    const simd = simdChunks(bytes);
    assert.ok(simd, "WebAssembly SIMD is available in Node");
    for (const [kind, Ctor] of [
      ["f32", Float32Array],
      ["f64", Float64Array],
    ] as const) {
      const n = bytes / Ctor.BYTES_PER_ELEMENT;
      const acc = new Ctor(simd.acc.buffer, simd.acc.byteOffset, n);
      const x = new Ctor(simd.x.buffer, simd.x.byteOffset, n);
      for (const op of ["sum", "prod", "max", "min"] as const) {
        // A fixed pseudo-random pattern of mixed magnitudes and signs.
        const a0 = new Ctor(n).map((_, i) => (((i * 7919) % 1000) - 500) * 1.37e-3 * (i % 3 ? 1e5 : 1));
        const x0 = new Ctor(n).map((_, i) => (((i * 104729) % 997) - 498) * 2.11e-2);
        [a0[0], x0[1], a0[2], x0[2], a0[3], x0[3]] = [NaN, NaN, -0, 0, 0, -0];
        acc.set(a0);
        x.set(x0);
        simd.fold(kind, op, bytes);
        fold(op, a0, x0);
        assert.deepEqual(new Uint8Array(acc.buffer, acc.byteOffset, bytes), new Uint8Array(a0.buffer), `${kind} ${op}`);
      }
    }
  });
});

describe("the path between two ranks", () => {
  it("is shared memory only to a peer that sees the same /dev/shm, and FRAY_COLLECTIVE_SAME_HOST is checked", () => {
    const mine = hostIdentity();
    assert.ok(mine.host, "this host has /dev/shm and /proc");
    assert.equal(pathTo({ host: mine.host, pid: process.pid + 1 }), "sharedMemory");
    assert.equal(pathTo({ host: mine.host, pid: process.pid }), "sharedArrayBuffer");
    // Another machine, or a namespace with its own /dev/shm (another device), or a peer with shared memory off.
    assert.equal(pathTo({ host: mine.host.replace(/\/\d+:/, "/1:"), pid: process.pid + 1 }), "socket");
    assert.equal(pathTo({ host: null, pid: process.pid + 1 }), "socket");
    const saved = process.env.FRAY_COLLECTIVE_SAME_HOST;
    try {
      process.env.FRAY_COLLECTIVE_SAME_HOST = "socket";
      assert.equal(pathTo({ host: mine.host, pid: process.pid + 1 }), "socket");
      process.env.FRAY_COLLECTIVE_SAME_HOST = "mmap";
      assert.throws(() => hostIdentity(), /^RangeError: FRAY_COLLECTIVE_SAME_HOST="mmap" is neither "shm" nor "socket"; unset it or give one of those$/);
    } finally {
      if (saved === undefined) delete process.env.FRAY_COLLECTIVE_SAME_HOST;
      else process.env.FRAY_COLLECTIVE_SAME_HOST = saved;
    }
  });
});
