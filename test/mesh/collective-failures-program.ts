// A user's program for test/mesh/collective-failures.test.ts, run where /dev/shm is too small for its arrays:
// a data-parallel step on 2 processes, twice, then how /dev/shm looks once the mesh has stopped. Prints JSON.
import { statfsSync } from "node:fs";
import { thisHost } from "../../src/mesh.ts";
import { UserTrainer } from "../fixtures/collective-actors.ts";

const used = () => {
  const s = statfsSync("/dev/shm");
  return (s.blocks - s.bfree) * s.bsize;
};
const usedBefore = used();
const procs = thisHost().spawnProcs({ gpus: 2 });
try {
  const trainers = procs.spawn("trainers", UserTrainer);
  const outcomes = [];
  for (let i = 0; i < 2; i++) outcomes.push((await trainers.allReduceOutcome.call(1 << 20, 2)).values());
  const sent = (await trainers.pathStats.call()).values().map((s) => ({ sharedMemory: s.sharedMemory.pieces, socket: s.socket.pieces }));
  await trainers.stop();
  console.log(JSON.stringify({ outcomes, sent, usedBefore, usedAfter: used() }));
} finally {
  await procs.stop();
}
