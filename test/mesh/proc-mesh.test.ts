// ProcMesh and slicing: extents, points, slices with steps, and the errors a
// bad slice gets. Ported from Monarch's mesh tests.
import assert from "node:assert/strict";
import nodeModule from "node:module";
import { after, before, describe, it } from "node:test";
import { thisHost, thisProc, type ProcMesh } from "../../src/mesh.ts";
import { CompileCacheReader, Counter, Driver } from "../fixtures/actors.ts";
import { isAlive, track } from "../helpers.ts";

describe("{hosts: 1, gpus: 2}", () => {
  let procs: ProcMesh;
  before(() => {
    procs = track(thisHost().spawnProcs({ hosts: 1, gpus: 2 }));
  });
  after(() => procs.stop());

  it("a broadcast to a slice reaches only that rank", async () => {
    const counters = procs.spawn("counters", Counter, 0);
    counters.slice({ hosts: 0, gpus: 1 }).incr.broadcast();
    const values = await counters.get.call();
    assert.equal(values.item({ hosts: 0, gpus: 0 }), 0);
    assert.equal(values.item({ hosts: 0, gpus: 1 }), 1);
  });

  it("an actor calls the mesh it was given at its own coordinates", async () => {
    const counters = procs.spawn("peers", Counter, 10);
    counters.slice({ gpus: 1 }).incr.broadcast(5);
    const drivers = procs.spawn("drivers", Driver);
    const values = await drivers.peer.call(counters);
    assert.deepEqual(values.values(), [10, 15]);
  });
});

describe("12 processes", () => {
  let procs: ProcMesh;
  before(() => {
    procs = track(thisHost().spawnProcs({ hosts: 3, gpus: 4 }));
  });
  after(() => procs.stop());

  it("has size 12 and answers from every rank", async () => {
    await procs.initialized;
    assert.equal(procs.size, 12);
    assert.deepEqual(procs.sizes, { hosts: 3, gpus: 4 });
    assert.equal(new Set(procs.pids).size, 12);
    const counters = procs.spawn("c", Counter, 1);
    assert.equal((await counters.get.call()).size, 12);
  });

  it("slices with steps, ranges and renames", async () => {
    const drivers = procs.spawn("d", Driver);
    const sliced = drivers.slice({ hosts: { start: 0, stop: 3, step: 2 }, gpus: { start: 1, step: 2 } });
    assert.deepEqual(sliced.sizes, { hosts: 2, gpus: 2 });
    const ranks = (await sliced.whoAmI.call()).values().map((w) => w.rank);
    assert.deepEqual(ranks, [1, 3, 9, 11]);
    const row = drivers.slice({ hosts: 1 });
    assert.deepEqual(row.sizes, { gpus: 4 });
    assert.deepEqual(
      (await row.whoAmI.call()).values().map((w) => [w.rank, w.messageRank]),
      [
        [4, 0],
        [5, 1],
        [6, 2],
        [7, 3],
      ],
    );
    assert.deepEqual(drivers.rename({ gpus: "cards" }).sizes, { hosts: 3, cards: 4 });
    assert.deepEqual(drivers.flatten("all").sizes, { all: 12 });
    assert.deepEqual(procs.slice({ gpus: 0 }).sizes, { hosts: 3 });
  });

  it("an unknown label is a TypeError, an index out of range a RangeError", () => {
    const counters = procs.spawn("e", Counter, 1);
    assert.throws(
      () => counters.slice({ nodes: 0 }),
      (e: Error) => e instanceof TypeError && /unknown label 'nodes'.*hosts, gpus/.test(e.message),
    );
    assert.throws(
      () => counters.slice({ gpus: 4 }),
      (e: Error) => e instanceof RangeError && /index 4 is out of range for 'gpus' of size 4/.test(e.message),
    );
    assert.throws(() => counters.slice({ gpus: { start: 5 } }), RangeError);
    assert.throws(() => counters.slice({ gpus: { start: 0, step: 0 } }), RangeError);
    assert.throws(() => procs.slice({ racks: 1 }), TypeError);
  });
});

describe("lifecycle", () => {
  it("stop() ends the processes and later spawns throw", async () => {
    const procs = track(thisHost().spawnProcs({ gpus: 2 }));
    await procs.initialized;
    const pids = procs.pids;
    await procs.stop();
    assert.deepEqual(pids.filter(isAlive), []);
    assert.throws(() => procs.spawn("late", Counter, 0), /stopped/);
  });

  it("thisProc() runs actors in this process", async () => {
    const local = thisProc().spawn("local", Counter, 41);
    local.incr.broadcast();
    assert.equal(await local.get.callOne(), 42);
    assert.equal(thisProc().size, 1);
  });
});

describe("procs packed into fewer OS processes", () => {
  it("a 64-rank mesh in 2 processes answers from every rank", async () => {
    await using procs = track(thisHost().spawnProcs({ ranks: 64 }, { processes: 2 }));
    assert.equal(procs.size, 64);
    assert.equal(procs.pids.length, 2);
    const drivers = procs.spawn("packed", Driver);
    const ranks = (await drivers.whoAmI.call()).values().map((w) => w.rank);
    assert.deepEqual(
      ranks,
      Array.from({ length: 64 }, (_, i) => i),
    );
    assert.throws(() => thisHost().spawnProcs({ ranks: 2 }, { processes: 3 }), /processes must be an integer from 1 to the mesh size 2, got 3/);
  });
});

describe("worker start", () => {
  // Workers compile the runtime once per machine, not once each (benchmark P6); Node 20 has no compile cache.
  const hasCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function";
  const what = hasCache ? "keeps node's compile cache" : "runs without a compile cache (this node has none)";
  it(`a worker process ${what}; NODE_DISABLE_COMPILE_CACHE turns it off`, async () => {
    await using procs = track(thisHost().spawnProcs({ procs: 1 }));
    const dir = await procs.spawn("cache", CompileCacheReader).directory.callOne();
    if (hasCache) assert.equal(typeof dir, "string");
    else assert.equal(dir, null);
    process.env.NODE_DISABLE_COMPILE_CACHE = "1";
    try {
      await using off = track(thisHost().spawnProcs({ procs: 1 }));
      assert.equal(await off.spawn("no-cache", CompileCacheReader).directory.callOne(), null);
    } finally {
      delete process.env.NODE_DISABLE_COMPILE_CACHE;
    }
  });
});
