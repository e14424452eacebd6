// The pool of buffers that paged bytes' chunks are read into to send: a buffer given back is the next one taken.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChunkPool } from "../../src/runtime/bulk/chunk-pool.ts";

describe("ChunkPool", () => {
  it("gives a buffer given back to the next take of its size, and a new one otherwise", () => {
    const pool = new ChunkPool();
    const a = pool.take(1024);
    const b = pool.take(1024);
    assert.notEqual(a.buffer, b.buffer);
    pool.give(a);
    assert.equal(pool.take(1024).buffer, a.buffer, "warm memory, used again");
    assert.notEqual(pool.take(1024).buffer, a.buffer, "taken once only");
  });

  it("keeps one size: a short last chunk given back while others are kept is left to the collector", () => {
    const pool = new ChunkPool();
    const [full, short] = [pool.take(1024), pool.take(100)];
    pool.give(full);
    pool.give(short);
    assert.equal(pool.take(1024).buffer, full.buffer);
    assert.notEqual(pool.take(100).buffer, short.buffer);
  });

  it("keeps at most 8 buffers", () => {
    const pool = new ChunkPool();
    const taken = Array.from({ length: 12 }, () => pool.take(64));
    for (const t of taken) pool.give(t);
    const again = new Set(Array.from({ length: 12 }, () => pool.take(64).buffer));
    assert.equal(taken.filter((t) => again.has(t.buffer)).length, 8);
  });
});
