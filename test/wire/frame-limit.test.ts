// FRAY_MAX_FRAME_BYTES: a frame header cannot make a process allocate more
// than the limit, even from an authenticated peer, and a sender refuses a
// message over it with an error naming the call, its argument and the setting.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FrameError } from "../../src/wire/errors.ts";
import { FrameDecoder } from "../../src/wire/frame.ts";

// Read when a connection is made: set before this process or its procs connect anywhere.
process.env.FRAY_MAX_FRAME_BYTES = String(2 ** 20);

const { thisHost } = await import("../../src/mesh.ts");
const { Whereabouts } = await import("../fixtures/net-actors.ts");
const { createJobContext } = await import("../../src/job.ts");
const { withDefaults } = await import("../fixtures/tasks.ts");

describe("FRAY_MAX_FRAME_BYTES", () => {
  it("FrameDecoder rejects a header announcing more than the maximum frame size without allocating it", () => {
    const decoder = new FrameDecoder(() => {}, { bytes: 2 ** 20, setting: "FRAY_MAX_FRAME_BYTES" });
    const header = Buffer.alloc(16);
    header.writeUInt32LE(3 * 2 ** 30, 0); // "3 GiB follow"
    const before = process.memoryUsage().arrayBuffers;
    assert.throws(
      () => decoder.push(header),
      (err: Error) => err instanceof FrameError && /FRAY_MAX_FRAME_BYTES/.test(err.message),
    );
    assert.ok(process.memoryUsage().arrayBuffers - before < 2 ** 20, "the decoder allocated the announced frame");
  });

  it("a message or a reply over the limit is refused by its sender with an error naming the endpoint, the argument and the setting", async (t) => {
    const procs = thisHost().spawnProcs({ procs: 1 });
    t.after(() => procs.stop());
    const actors = procs.spawn("sized", Whereabouts);
    await actors.initialized;
    assert.deepEqual((await actors.lengthOf.call(new Uint8Array(2 ** 19))).values(), [2 ** 19]);
    await assert.rejects(
      actors.lengthOf.call(new Uint8Array(2 ** 21)),
      (err: Error) =>
        err instanceof FrameError &&
        /^the arguments of Whereabouts\.lengthOf make a message of \d+ bytes to \S+, more than FRAY_MAX_FRAME_BYTES=1048576: argument 1 of Whereabouts\.lengthOf is 2097\d{3} bytes encoded\. .*raise FRAY_MAX_FRAME_BYTES on both sides$/.test(
          err.message,
        ),
    );
    await assert.rejects(actors.bytes.call(2 ** 21), /FRAY_MAX_FRAME_BYTES=1048576/);
    assert.deepEqual((await actors.double.call(3)).values(), [6], "the proc and its connection are still fine");
  });

  it("a lone task on processes whose plain arguments make a message over the limit fails naming the setting; the next runs", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 1 });
    assert.equal(await ctx.get(ctx.run(withDefaults, 1, 2)), 3); // its worker's lane (src/job/routes/port-lane.ts) is open by now
    const big = Array.from({ length: 24 }, () => "€".repeat(16_000)); // each plain (under 16,384 characters), 1.15 MB together
    await assert.rejects(ctx.get(ctx.run(withDefaults, 1, 2, ...(big as unknown as number[]))), /FRAY_MAX_FRAME_BYTES=1048576/);
    assert.equal(await ctx.get(ctx.run(withDefaults, 2, 3)), 5);
  });
});
