// A rank that fails makes its peers' collectives fail at once (docs/mesh.md, "Collectives"), not after
// FRAY_COLLECTIVE_TIMEOUT_MS: an endpoint that throws before its collective, or a rank whose own part of a call
// fails, on processes and on threads, with arrays in frames and in shared memory; the group then works again.
// Shared memory that is refused (another user's process, a full /dev/shm) falls back to frames.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { Channel, setUnhandledFaultHook, thisHost, type ProcMesh } from "../../src/mesh.ts";
import { UserTrainer } from "../fixtures/collective-actors.ts";
import { runProgramWithSmallShm, track } from "../helpers.ts";

// Long enough that a peer waiting for it is no answer the tests accept; the workers inherit it.
const TIMEOUT = "120000";
const PROGRAM = fileURLToPath(new URL("collective-failures-program.ts", import.meta.url));

for (const [title, threads] of [
  ["processes", false],
  ["worker threads", true],
] as const) {
  describe(`a rank that fails while its peers are in a collective (${title})`, () => {
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

    it("fails every peer's call at once when one rank's own part fails (a root out of range), naming it; the group then works again", async () => {
      const trainers = procs.spawn("roots", UserTrainer);
      const got = (await trainers.broadcastFrom.call([0, 0, 0, 7], 1 << 18)).values();
      assert.match(got[3], /^RangeError: collective\.broadcast: root must be an integer index into the group of 4 ranks \(0 to 3\), got 7$/);
      for (const outcome of got.slice(0, 3))
        assert.match(
          outcome,
          /^Error: collective\.broadcast cannot complete: rank 3 \{gpus: 3\} of mesh roots failed: RangeError: collective\.broadcast: root must be/,
        );
      assert.deepEqual((await trainers.broadcastFrom.call([1, 1, 1, 1], 1 << 18)).values(), ["ok", "ok", "ok", "ok"]);
    });

    it("fails the peers of a rank whose broadcast endpoint throws (nobody awaits it: the rank dies)", async () => {
      const previous = setUnhandledFaultHook(() => {}); // the owner (this test) expects the death
      const trainers = procs.spawn("waiting", UserTrainer);
      await trainers.allReduceIs.call(16, 10);
      const [outcomesPort, outcomes] = Channel.open<[number, string]>();
      try {
        trainers.allReduceUnless.broadcast(0, outcomesPort, 1 << 20);
        const got = [await outcomes.recv(), await outcomes.recv(), await outcomes.recv()];
        // A broadcast has no reply port to match the quit by: a peer whose message began only after rank 0's quit reached
        // its process waits out FRAY_COLLECTIVE_TIMEOUT_MS instead (docs/limits.md). Either way no peer hangs.
        for (const [, outcome] of got)
          assert.match(
            outcome,
            /^Error: collective\.allReduce (cannot complete: rank 0 \{gpus: 0\} of mesh waiting left the group: its endpoint threw Error: rank 0 has no gradients|timed out after)/,
          );
      } finally {
        outcomes.close();
        await trainers.stop();
        setUnhandledFaultHook(previous);
      }
    });
  });
}

describe("a rank that cannot open its peers' shared memory (its process runs as another user)", () => {
  let procs: ProcMesh;
  const saved = process.env.FRAY_COLLECTIVE_TIMEOUT_MS;
  before(() => {
    process.env.FRAY_COLLECTIVE_TIMEOUT_MS = TIMEOUT;
    procs = track(thisHost().spawnProcs({ gpus: 2 }));
  });
  after(async () => {
    if (saved === undefined) delete process.env.FRAY_COLLECTIVE_TIMEOUT_MS;
    else process.env.FRAY_COLLECTIVE_TIMEOUT_MS = saved;
    await procs.stop();
  });

  it("agrees with its peers to send their pieces in frames", async () => {
    // The procs talk first (a new connection to a root process's socket would be refused to the other user).
    const first = procs.spawn("first", UserTrainer);
    assert.deepEqual((await first.allReduceOutcome.call(16, 2)).values(), ["ok", "ok"]);
    assert.deepEqual((await first.slice({ gpus: 1 }).becomeUser.call(65534)).values(), [65534]);
    const trainers = procs.spawn("users", UserTrainer);
    const before = (await trainers.pathStats.call()).values();
    for (let i = 0; i < 2; i++) assert.deepEqual((await trainers.allReduceOutcome.call(1 << 20, 2)).values(), ["ok", "ok"]);
    // Each rank sent its peer two pieces per call (reduce-scatter, all-gather), all in frames.
    for (const [r, sent] of (await trainers.pathStats.call()).values().entries())
      assert.deepEqual([sent.sharedMemory.pieces, sent.socket.pieces - before[r].socket.pieces], [0, 4]);
  });
});

describe("a /dev/shm too small for the arrays (a 1 MiB tmpfs, as a container's might be)", () => {
  it("makes the ranks send their pieces in frames instead, and is left as it was", async (t) => {
    // The program runs in a mount namespace of its own, with a 1 MiB tmpfs on /dev/shm.
    const { code, stdout, stderr } = await runProgramWithSmallShm(t, PROGRAM, { FRAY_COLLECTIVE_TIMEOUT_MS: TIMEOUT });
    assert.equal(code, 0, stderr);
    const got = JSON.parse(stdout);
    assert.deepEqual(got.outcomes, [
      ["ok", "ok"],
      ["ok", "ok"],
    ]);
    for (const sent of got.sent) assert.equal(sent.socket, 4, "each rank sent its 4 pieces in frames");
    assert.equal(got.usedAfter, got.usedBefore);
  });
});
