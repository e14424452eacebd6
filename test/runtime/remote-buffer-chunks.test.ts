// A RemoteBuffer read from another host lands its chunks in place (the reply's bytes copied from the socket straight
// into the destination, bulk-links.ts and frame.ts's Landing): exact byte for byte at sizes around the chunk size, into
// a destination that is a view at an odd offset of a larger buffer, whose bytes around it are left as they were.
import assert from "node:assert/strict";
import { it } from "node:test";
import { ProcessJob } from "../../src/launchers.ts";
import { BufferOwner, patternByte } from "../fixtures/buffer-actors.ts";
import { killJob } from "../helpers.ts";

process.env.FRAY_HOST_TIMEOUT_MS = "60000"; // a loaded 2-core machine: no test here is about a lost host

const CHUNK = 2 ** 20; // FRAY_BUFFER_CHUNK_BYTES's default
const SIZES = [1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 7, 5 * CHUNK - 8];

it("a RemoteBuffer on a TCP host is read exactly at sizes around the chunk size, into a view at an odd offset", async () => {
  const job = new ProcessJob({ meshes: { hosts: 1 } });
  try {
    const { hosts } = await job.state();
    await using procs = hosts.spawnProcs({ procs: 1 });
    const owner = procs.spawn("owner", BufferOwner);
    for (const [k, size] of SIZES.entries()) {
      const buf = await owner.patterned.callOne(size, k);
      assert.match(buf.owner, /^tcp:/);
      const around = new Uint8Array(size + 10).fill(0xee);
      const dst = around.subarray(3, 3 + size);
      await buf.readInto(dst);
      let wrong = -1;
      for (let i = 0; i < size && wrong < 0; i++) if (dst[i] !== patternByte(i, k)) wrong = i;
      assert.equal(wrong, -1, `${size} bytes: byte ${wrong} is ${dst[wrong]}, not ${patternByte(wrong, k)}`);
      assert.deepEqual([...around.subarray(0, 3), ...around.subarray(3 + size)], Array(10).fill(0xee), `${size} bytes: nothing written outside the view`);
      await buf.drop();
    }
  } finally {
    await killJob(job);
  }
});
