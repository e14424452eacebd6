// A large `put` in the driver (`processes`) is held in the driver's process as a worker holds a large result
// (src/job/objects/kept-values.ts keptPut): in /dev/shm, under FRAY_OBJECT_STORE_BYTES, so a task given its ref reads it
// from there in one copy instead of receiving it inside its call; `put` takes its snapshot at once; the value is freed
// with its last ref. On `threads`, and below FRAY_OBJECT_INLINE_BYTES, the head keeps the value itself, as before.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createJobContext } from "../../src/job.ts";
import { HELD_BYTES } from "../../src/job/objects/held-bytes.ts";
import { gc } from "./held-backends.ts";
import { checkFill } from "./object-spill-tasks.ts";

const N = 524_288; // 4 MiB of doubles

/** Bytes the driver's process holds now (heap and /dev/shm). */
const heldHere = () => HELD_BYTES.counts().held;

describe("a large put in the driver", () => {
  it("is held in the driver's process and read by a task from there, as it was when put (processes)", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 1 });
    const before = heldHere();
    // Its ref lives in this function alone: garbage once it returns.
    await (async () => {
      const data = new Float64Array(N).fill(3);
      const ref = ctx.put({ data });
      data.fill(4); // after the put: the ref keeps what was put
      assert.ok(heldHere() - before >= N * 8, `the driver holds the value: ${heldHere() - before} bytes more`);
      const read = await ctx.get(ctx.run(checkFill, ref, 3));
      assert.deepEqual([read.exact, read.length], [true, N]);
      const mine = await ctx.get(ref);
      assert.equal(mine.data[0], 3);
      assert.notEqual(mine.data, data);
    })();
    for (let round = 0; round < 100 && heldHere() > before; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(heldHere(), before, "freed with its last ref");
  });

  it("holding refs, is kept by the head as it is, so the values they name stay while it does (processes)", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 1 });
    const before = heldHere();
    const outer = (() => {
      const inner = ctx.put("inner value"); // its only ref outside is the one in the large value
      return ctx.put({ data: new Float64Array(N).fill(3), inner });
    })();
    assert.equal(heldHere(), before, "not held: decoded anew, its refs would keep nothing alive");
    for (let round = 0; round < 5; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const { inner } = await ctx.get(outer);
    assert.equal(await ctx.get(inner), "inner value");
  });

  for (const backend of ["threads", "processes"] as const) {
    const what = backend === "threads" ? "a large one on threads" : "a small one";
    it(`${what} is kept by the head as it is (${backend})`, async () => {
      await using ctx = createJobContext(backend, { maxWorkers: 1 });
      const before = heldHere();
      const value = { data: new Float64Array(backend === "threads" ? N : 16).fill(3) };
      const ref = ctx.put(value);
      assert.equal(heldHere(), before);
      assert.equal(await ctx.get(ref), value);
      assert.ok((await ctx.get(ctx.run(checkFill, ref, 3))).exact);
    });
  }
});
