// What collectives hold in memory (docs/mesh.md, "Collectives"): a sweep that spawns and stops meshes on
// long-lived procs, each running a large allReduce, leaves neither /dev/shm files (held open by the ranks'
// processes) nor SharedArrayBuffers behind; a mesh that runs collectives on many groups keeps the outboxes of
// at most FRAY_COLLECTIVE_OUTBOX_GROUPS of them.
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { thisHost, type ProcMesh } from "../../src/mesh.ts";
import { outboxFilesOf, Trainer } from "../fixtures/collective-actors.ts";
import { track } from "../helpers.ts";

/** Bytes of /dev/shm outbox files process `pid` holds open (unlinked: only its fds reach them). */
function outboxBytesOf(pid: number): number {
  return outboxFilesOf(pid, true).reduce((sum, fd) => {
    try {
      return sum + statSync(fd).size;
    } catch {
      return sum; // closed meanwhile
    }
  }, 0);
}

const MESHES = 8;
const FLOATS = 1 << 21; // 8 MiB

for (const [title, threads] of [
  ["processes", false],
  ["worker threads", true],
] as const) {
  describe(`a sweep of ${MESHES} meshes on long-lived procs (${title})`, () => {
    let procs: ProcMesh;
    before(() => {
      procs = track(thisHost().spawnProcs({ gpus: 2 }, { threads }));
    });
    after(() => procs.stop());

    it("leaves no shared memory behind once each mesh has stopped", async () => {
      for (let i = 0; i < MESHES; i++) {
        const trainers = procs.spawn(`sweep${i}`, Trainer);
        assert.deepEqual((await trainers.allReduceIs.call(FLOATS, 3)).values(), [true, true]);
        // While it runs, its outboxes hold the array.
        const held = (await trainers.outboxesHeld.call()).values();
        assert.ok(
          held.every((n) => n > 0),
          `mesh ${i} holds outboxes while it runs: ${held}`,
        );
        await trainers.stop();
      }
      const probe = procs.spawn("probe", Trainer);
      assert.deepEqual((await probe.outboxesHeld.call()).values(), [0, 0]);
      if (!threads) for (const pid of procs.pids) assert.deepEqual([outboxFilesOf(pid), outboxBytesOf(pid)], [[], 0], `process ${pid}`);
    });
  });
}

describe("a mesh running collectives on more groups than FRAY_COLLECTIVE_OUTBOX_GROUPS", () => {
  let procs: ProcMesh;
  const saved = process.env.FRAY_COLLECTIVE_OUTBOX_GROUPS;
  before(() => {
    process.env.FRAY_COLLECTIVE_OUTBOX_GROUPS = "2"; // the workers inherit it
    procs = track(thisHost().spawnProcs({ hosts: 2, gpus: 2 }));
  });
  after(async () => {
    if (saved === undefined) delete process.env.FRAY_COLLECTIVE_OUTBOX_GROUPS;
    else process.env.FRAY_COLLECTIVE_OUTBOX_GROUPS = saved;
    await procs.stop();
  });

  it("keeps the outboxes of the groups it used last, and the others still work", async () => {
    const trainers = procs.spawn("groups", Trainer);
    // Four groups per rank: the whole mesh, its row, its column, and a slice.
    for (let round = 0; round < 2; round++) {
      assert.deepEqual((await trainers.allReduceIs.call(1 << 18, 10)).values(), [true, true, true, true]);
      for (const got of (await trainers.allReduce.call("max", 100_000, ["gpus"])).values()) assert.equal(got.length, 100_000);
      for (const got of (await trainers.allReduce.call("max", 100_000, ["hosts"])).values()) assert.equal(got.length, 100_000);
      for (const got of (await trainers.slice({ gpus: 0 }).allReduce.call("sum", 100_000)).values()) assert.equal(got.length, 100_000);
      for (const [rank, held] of (await trainers.outboxesHeld.call()).values().entries()) assert.ok(held <= 2 * 2, `rank ${rank} holds ${held} outboxes`);
    }
    for (const pid of procs.pids) assert.ok(outboxFilesOf(pid).length <= 2 * 2, `process ${pid}: ${outboxFilesOf(pid).length} outbox files`);
  });
});
