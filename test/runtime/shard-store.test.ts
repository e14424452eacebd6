// The shard store's reads that come before their shard's making (an array
// handed on at once reaches a rank from another sender, which may overtake
// the maker): they wait for the making, are told at once when the array was
// dropped or its maker released its shards, and give up after
// FRAY_SPAWN_WAIT_MS naming the setting. (distributed-array.test.ts shows the
// overtaking itself between real processes.)
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { ShardRef, ShardStore } from "../../src/runtime/bulk/shard-store.ts";

const ref = (id: string): ShardRef => new ShardRef(id, `DistributedArray ${id}`);
const shard = (v: number): Promise<ArrayBufferView> => Promise.resolve(new Float64Array([v]));

describe("ShardStore: a read before the making", () => {
  afterEach(() => delete process.env.FRAY_SPAWN_WAIT_MS);

  it("waits for the making, then reads what was made for its rank", async () => {
    const store = new ShardStore();
    const read0 = store.get(ref("a"), 0);
    const read1 = store.get(ref("a"), 1);
    store.put("a", 1, "actor-1", shard(11));
    store.put("a", 0, "actor-0", shard(10));
    assert.deepEqual([...((await read0) as Float64Array)], [10]);
    assert.deepEqual([...((await read1) as Float64Array)], [11]);
  });

  it("is told at once when the array is dropped while it waits, and when asked after the drop", async () => {
    const store = new ShardStore();
    const waiting = store.get(ref("b"), 0);
    store.put("b", 1, "actor-1", shard(1));
    store.drop("b");
    await assert.rejects(waiting, /^Error: DistributedArray b has no shard for rank 0 here: it was dropped$/);
    await assert.rejects(store.get(ref("b"), 1), /has no shard for rank 1 here: it was dropped$/);
  });

  it("is told at once when the actor that made the shard stopped", async () => {
    const store = new ShardStore();
    store.put("c", 0, "actor-0", shard(1));
    store.releaseOwnedBy("actor-0");
    assert.equal(store.size, 0);
    await assert.rejects(store.get(ref("c"), 0), /has no shard for rank 0 here: the actor that made it stopped or was respawned$/);
  });

  it("gives up after FRAY_SPAWN_WAIT_MS, naming it, and a making after that is kept for later reads", async () => {
    process.env.FRAY_SPAWN_WAIT_MS = "20";
    const store = new ShardStore();
    const alive = setInterval(() => {}, 60_000); // the store's timer does not hold a process open; this test's must
    try {
      await assert.rejects(
        store.get(ref("d"), 0),
        /has no shard for rank 0 here: none was made here within 20 ms \(FRAY_SPAWN_WAIT_MS\): it lives on other processes/,
      );
    } finally {
      clearInterval(alive);
    }
    store.put("d", 0, "actor-0", shard(4));
    assert.deepEqual([...((await store.get(ref("d"), 0)) as Float64Array)], [4]);
  });
});
