// fray/array: DistributedArray on threads and on processes — rref, map,
// reduce (allReduce and reduce-scatter, "avg"), fetchShard, gather, drop —
// its errors (mismatched shards, a dropped array, another mesh's processes, a
// dead rank) and its freeing (drop, garbage collection, mesh stop); and
// data-parallel linear regression whose client receives only the weights.
import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, it } from "node:test";

process.env.FRAY_METRICS = "all"; // the client counts the bytes it receives (frames received by kind: all)
const { Channel, SupervisionError, setUnhandledFaultHook, thisHost } = await import("../../src/mesh.ts");
const { DistributedArray } = await import("../../src/array.ts");
const { framesIn } = await import("../../src/runtime/base/counters.ts");
const A = await import("./distributed-array-actors.ts");
const { track } = await import("../helpers.ts");

type Procs = ReturnType<ReturnType<typeof thisHost>["spawnProcs"]>;

function spawn(kind: "threads" | "processes", gpus = 4): Procs {
  const procs = thisHost().spawnProcs({ gpus }, kind === "threads" ? { threads: true } : {});
  return kind === "processes" ? track(procs) : procs;
}

function bytesReceived(): number {
  let n = 0;
  for (const c of framesIn.values()) n += c.bytes;
  return n;
}

for (const kind of ["threads", "processes"] as const) {
  describe(`DistributedArray on ${kind}`, () => {
    it("rref keeps each rank's result there; map, reduce (sum, avg, scatter), fetchShard and gather", async () => {
      await using procs = spawn(kind);
      const shards = procs.spawn("shards", A.Shards);
      const ones = shards.values.rref(4); // rank r: [r+1]×4
      assert.ok(ones instanceof DistributedArray);
      await ones.ready();
      assert.equal(ones.dtype, "Float64Array");
      assert.deepEqual(ones.shardShape, [4]);
      const tripled = ones.map(A.scaled, 3);
      const both = tripled.map(A.added, ones); // another array's shard, rank by rank
      assert.deepEqual(
        (await both.gather()).map((s) => [...s]),
        [1, 2, 3, 4].map((v) => Array(4).fill(4 * v)),
      );
      assert.deepEqual([...(await both.fetchShard({ gpus: 2 }))], Array(4).fill(12));
      assert.deepEqual([...(await ones.reduce("gpus", "sum").fetchShard({ gpus: 3 }))], Array(4).fill(10));
      assert.deepEqual([...(await ones.reduce(["gpus"], "avg").fetchShard({ gpus: 0 }))], Array(4).fill(2.5));
      const scattered = ones.reduce("gpus", "sum", { scatter: true });
      await scattered.ready();
      assert.deepEqual(scattered.shardShape, [1]);
      assert.deepEqual(
        (await scattered.gather()).map((s) => [...s]),
        [[10], [10], [10], [10]],
      );
      const ints = shards.ints.rref(2);
      assert.deepEqual(
        (await ints.gather()).map((s) => s.constructor.name),
        Array(4).fill("Int32Array"),
      );
      // Passed to an endpoint, each rank gets its own shard, not a copy.
      assert.deepEqual((await shards.sum.call(ones)).values(), [4, 8, 12, 16]);
      assert.deepEqual((await shards.bump.call(ones)).values(), [101, 102, 103, 104]);
      assert.deepEqual([...(await ones.fetchShard({ gpus: 0 }))], [101, 1, 1, 1]);
      // A mesh spawned on the same processes gets the shards too.
      const other = procs.spawn("other", A.Other);
      assert.deepEqual((await other.sum.call(tripled)).values(), [12, 24, 36, 48]);
    });

    it("an array passed on before its ranks heard of its making: a rank that reads it waits for its shard", async () => {
      await using procs = spawn(kind);
      const other = procs.spawn("other", A.Other);
      await other.initialized;
      // The making waits for the new mesh's spawn; the call below goes to a spawned mesh at once, from the same
      // sender but to another actor, so it reaches each rank's process before the making does.
      const fresh = procs.spawn("fresh", A.Shards);
      const ones = fresh.values.rref(4);
      assert.deepEqual((await other.sum.call(ones)).values(), [4, 8, 12, 16]);
      assert.deepEqual((await other.sum.call(ones.map(A.scaled, 2))).values(), [8, 16, 24, 32]);
    });

    it("an array read through its own ranks before they heard of its making: the read waits outside the mailbox the making needs", async () => {
      await using procs = spawn(kind);
      const other = procs.spawn("other", A.Other);
      await other.initialized;
      // As above, the reads (gather asks each rank of `fresh` for its shard) reach fresh's ranks before the making does,
      // held back while this process first looks up where the class is exported: a read that held fresh's mailbox while it
      // waited would keep the making queued behind it until FRAY_SPAWN_WAIT_MS.
      const fresh = procs.spawn("fresh", kind === "threads" ? A.LateShardsOnThreads : A.LateShardsOnProcesses);
      const ones = fresh.values.rref(2);
      assert.deepEqual(await other.slice({ gpus: 1 }).gathered.callOne({ array: ones }), [
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 4],
      ]);
    });

    it("errors: a failing map surfaces on the next awaited operation; mismatched shards, a dropped array and another mesh's processes are named", async () => {
      await using procs = spawn(kind);
      await using elsewhere = spawn(kind, 2);
      const shards = procs.spawn("shards", A.Shards);
      const ones = shards.values.rref(4);
      const failed = ones.map(A.fails);
      const after = failed.map(A.scaled, 2); // returned at once; its ranks find no shard to work on
      await assert.rejects(after.gather(), /map function failed on purpose/);
      await assert.rejects(failed.fetchShard({ gpus: 1 }), /map function failed on purpose/);
      await assert.rejects(ones.map(A.notAnArray).ready(), /map function notAnArray returned number; the shards of a DistributedArray are typed arrays/);
      // Shards of different lengths cannot be reduced: the error names two of them.
      const ragged = shards.values.rref(4, true);
      await assert.rejects(
        ragged.reduce("gpus").ready(),
        /the shards differ \(rank 0 \{gpus: 0\} of mesh shards has Float64Array\[4\], rank 1 \{gpus: 1\} of mesh shards has Float64Array\[5\]\)/,
      );
      await ragged.ready();
      assert.throws(
        () => ragged.shardShape,
        /its shards differ in shape \(rank 0 .* has Float64Array\[4\], rank 1 .* has Float64Array\[5\]\); read shardShapes/,
      );
      assert.deepEqual(ragged.shardShapes, [[4], [5], [6], [7]]);
      const mixed = shards.values.rref(4);
      assert.throws(() => mixed.reduce("hosts"), /'hosts' is not a dimension of .*; give some of gpus/);
      assert.throws(() => mixed.reduce("gpus", "mean" as "sum"), /unknown op "mean"/);
      // Another mesh's processes hold none of its shards.
      const away = elsewhere.spawn("away", A.Other);
      assert.throws(() => away.sum.call(mixed), /cannot be passed to Other mesh .*: its shards are on the processes of Shards mesh/);
      // A dropped array: every later operation says so.
      await mixed.drop();
      assert.throws(() => mixed.map(A.scaled, 2), /map after drop\(\); the array's shards are freed/);
      await assert.rejects(mixed.gather(), /gather after drop\(\)/);
      await assert.rejects(mixed.fetchShard({ gpus: 0 }), /fetchShard after drop\(\)/);
      assert.throws(() => shards.sum.call(mixed), /passing it to Shards after drop\(\)/);
      const unready = shards.values.rref(1);
      assert.throws(() => unready.dtype, /is not known yet: await array.ready\(\) first/);
      await unready.ready();
    });

    it("shards are freed by drop, by garbage collection of their handle, and when their mesh stops", async () => {
      await using procs = spawn(kind, 2);
      const shards = procs.spawn("shards", A.Shards);
      const probe = procs.spawn("probe", A.Probe);
      const held = async () => (await probe.heldShards.call()).values();
      const kept = shards.values.rref(8);
      const dropped = shards.values.rref(8);
      await Promise.all([kept.ready(), dropped.ready()]);
      assert.deepEqual(await held(), [2, 2]);
      await dropped.drop();
      assert.deepEqual(await held(), [1, 1]);
      await (async () => shards.values.rref(8).ready())(); // its handle is garbage once this returns
      assert.deepEqual(await held(), [2, 2]);
      setFlagsFromString("--expose-gc");
      const gc = runInNewContext("gc") as () => void;
      // FinalizationRegistry callbacks run some time after a collection: collect until the drop reached every rank.
      let now = await held();
      for (let i = 0; i < 200 && now.some((n) => n !== 1); i++) {
        gc();
        await new Promise((r) => setImmediate(r));
        now = await held();
      }
      assert.deepEqual(now, [1, 1]);
      await shards.stop();
      assert.deepEqual(await held(), [0, 0]);
      assert.throws(() => kept.map(A.scaled, 2), /after its mesh was stopped, which freed its shards/);
    });

    it("a rank's death fails the array's later operations with SupervisionError", async () => {
      await using procs = spawn(kind, 2);
      // An open channel keeps this process waiting for the failure to reach it.
      const [port, failures] = Channel.open<unknown>();
      const previous = setUnhandledFaultHook((f) => port.send(f));
      try {
        const shards = procs.spawn("shards", A.Shards);
        const ones = shards.values.rref(4);
        await ones.ready();
        shards.slice({ gpus: 1 }).exit.broadcast();
        await failures.recv();
        await assert.rejects(ones.gather(), SupervisionError);
        await assert.rejects(ones.fetchShard({ gpus: 1 }), SupervisionError);
        await assert.rejects(ones.map(A.scaled, 2).ready(), SupervisionError);
        await assert.rejects(ones.reduce("gpus").ready(), SupervisionError);
      } finally {
        setUnhandledFaultHook(previous);
        failures.close();
      }
    });
  });
}

describe("data-parallel linear regression", () => {
  it("4 ranks with X and y made on the ranks match one process to 1e-5; the client receives only the weights", async () => {
    const ROWS = 2000;
    const STEPS = 40;
    const RATE = 0.2;
    await using procs = spawn("processes");
    const ranks = procs.spawn("regressors", A.Regressor, ROWS);
    const X = ranks.features.rref();
    const y = ranks.targets.rref();
    let w = ranks.zeros.rref(A.FEATURES);
    await Promise.all([X.ready(), y.ready(), w.ready()]);
    assert.deepEqual(X.shardShape, [ROWS * A.FEATURES]);
    const before = bytesReceived();
    for (let s = 0; s < STEPS; s++) {
      const g = X.map(A.gradient, w, y).reduce("gpus", "avg");
      w = w.map(A.step, g, RATE);
    }
    const weights = await w.fetchShard({ gpus: 0 });
    const received = bytesReceived() - before;

    // The same training in this process, on all the rows at once.
    const all = A.dataRows(0, 4 * ROWS);
    let local = new Float64Array(A.FEATURES);
    for (let s = 0; s < STEPS; s++) local = A.step(local, A.gradient(all.X, local, all.y), RATE);
    for (let j = 0; j < A.FEATURES; j++)
      assert.ok(Math.abs(weights[j] - local[j]) <= 1e-5, `weight ${j}: ${weights[j]} on the mesh, ${local[j]} in one process`);
    for (let j = 0; j < A.FEATURES; j++)
      assert.ok(Math.abs(weights[j] - A.TRUE_WEIGHTS[j]) < 0.05, `weight ${j} learned ${weights[j]}, truth ${A.TRUE_WEIGHTS[j]}`);
    // 3 operations a step answer with each shard's type and length (~40 bytes a rank), and the
    // weights come once: far less than one rank's shard of X (64,000 bytes) or the gradients.
    const xBytes = 4 * ROWS * A.FEATURES * 8;
    assert.ok(received < xBytes / 8, `the client received ${received} bytes while training; X is ${xBytes}`);
    assert.ok(received >= weights.byteLength);
  });
});
