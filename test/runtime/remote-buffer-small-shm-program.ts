// A user's program for test/runtime/remote-buffer.test.ts, run where /dev/shm is smaller than its buffer: one
// process reads a RemoteBuffer that another owns, writes it over, and reads it again. Prints JSON.
import { statfsSync } from "node:fs";
import { thisHost } from "../../src/mesh.ts";
import { BufferOwner } from "../fixtures/buffer-actors.ts";

const SIZE = 4 << 20;
const used = () => {
  const s = statfsSync("/dev/shm");
  return (s.blocks - s.bfree) * s.bsize;
};
const usedBefore = used();
const procs = thisHost().spawnProcs({ procs: 2 });
try {
  const owners = procs.spawn("owners", BufferOwner);
  const [owner, reader] = [owners.slice({ procs: 0 }), owners.slice({ procs: 1 })];
  const buf = await owner.big.callOne(SIZE, 9);
  const read = await reader.copyOf.callOne(buf);
  await reader.scribble.callOne(buf);
  const again = await reader.copyOf.callOne(buf);
  console.log(
    JSON.stringify({
      read: read.length === SIZE && read.every((b) => b === 9),
      written: again.length === SIZE && again.every((b, i) => b === (i * 7) % 256),
      usedBefore,
      usedAfter: used(),
    }),
  );
} finally {
  await procs.stop();
}
