// A rank that fails makes its peers' collectives fail at once (docs/mesh.md, "Collectives"), not after
// FRAY_COLLECTIVE_TIMEOUT_MS: an endpoint that throws before its collective, on processes and on threads, with
// arrays in frames and in shared memory; the group then works again.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Channel, setUnhandledFaultHook, thisHost, type ProcMesh } from "../../src/mesh.ts";
import { UserTrainer } from "../fixtures/collective-actors.ts";
import { track } from "../helpers.ts";

// Long enough that a peer waiting for it is no answer the tests accept; the workers inherit it.
const TIMEOUT = "120000";

for (const [title, threads] of [
  ["processes", false],
  ["worker threads", true],
] as const) {
  describe(`a rank whose endpoint throws before its collective (${title})`, () => {
    let procs: ProcMesh;
    const saved = process.env.FRAY_COLLECTIVE_TIMEOUT_MS;
    before(() => {
      process.env.FRAY_COLLECTIVE_TIMEOUT_MS = TIMEOUT;
      procs = track(thisHost().spawnProcs({ gpus: 4 }, { threads }));
    });
    after(async () => {
      if (saved === undefined) delete process.env.FRAY_COLLECTIVE_TIMEOUT_MS;
      else process.env.FRAY_COLLECTIVE_TIMEOUT_MS = saved;
      await procs.stop();
    });

    for (const [size, length] of [
      ["a small array", 16],
      ["a large array", 1 << 20],
    ] as const) {
      it(`fails every peer's allReduce of ${size} at once, naming the rank and its error; the group then works again`, async () => {
        const trainers = procs.spawn(`t${length}`, UserTrainer);
        assert.deepEqual((await trainers.allReduceIs.call(length, 10)).values(), [true, true, true, true]);
        const [outcomesPort, outcomes] = Channel.open<[number, string]>();
        try {
          await assert.rejects(trainers.allReduceUnless.call(2, outcomesPort, length), /rank 2 has no gradients/);
          const got = [await outcomes.recv(), await outcomes.recv(), await outcomes.recv()].sort((a, b) => a[0] - b[0]);
          assert.deepEqual(
            got.map(([rank]) => rank),
            [0, 1, 3],
          );
          for (const [, outcome] of got)
            assert.match(
              outcome,
              /^Error: collective\.allReduce cannot complete: rank 2 \{gpus: 2\} of mesh t\d+ left the group: its endpoint threw Error: rank 2 has no gradients/,
            );
          // Every rank's next calls on the group match again.
          for (let i = 0; i < 2; i++) assert.deepEqual((await trainers.allReduceIs.call(length, 10)).values(), [true, true, true, true]);
        } finally {
          outcomes.close();
        }
      });
    }

    it("fails the peers of a rank whose broadcast endpoint throws (nobody awaits it: the rank dies)", async () => {
      const previous = setUnhandledFaultHook(() => {}); // the owner (this test) expects the death
      const trainers = procs.spawn("waiting", UserTrainer);
      await trainers.allReduceIs.call(16, 10);
      const [outcomesPort, outcomes] = Channel.open<[number, string]>();
      try {
        trainers.allReduceUnless.broadcast(0, outcomesPort, 1 << 20);
        const got = [await outcomes.recv(), await outcomes.recv(), await outcomes.recv()];
        for (const [, outcome] of got)
          assert.match(
            outcome,
            /^Error: collective\.allReduce cannot complete: rank 0 \{gpus: 0\} of mesh waiting left the group: its endpoint threw Error: rank 0 has no gradients/,
          );
      } finally {
        outcomes.close();
        await trainers.stop();
        setUnhandledFaultHook(previous);
      }
    });
  });
}
