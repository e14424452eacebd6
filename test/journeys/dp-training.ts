// Journey 5, data-parallel training on a mesh: STEPS allReduce steps over 4 ranks in worker processes, as a
// training loop is written — a checkpoint after each step, and on a failed step the dead ranks respawned, every
// rank put back to the checkpoint, and the step run again (a recovery cut short by another failure, too). Its own faults: rank 2 is SIGKILLed during step 3,
// and rank 1 throws before its collective in step 5 (its peers must be let go at once, not after the
// collective timeout). The parameters must match the same steps computed in one process, bit for bit.
//   node --import tsx test/journeys/dp-training.ts mesh
import assert from "node:assert/strict";
import { ActorError, Channel, setUnhandledFaultHook, SupervisionError, thisHost, type MeshFailure } from "../../src/mesh.ts";
import { DataParallelRank, gradient, PARAMS, RATE } from "./dp-training-actors.ts";
import { journeyKind, reportJourney } from "./journey.ts";

const RANKS = 4;
const STEPS = 8;
const ATTEMPTS = 8;
const kind = journeyKind(["mesh"]);

// Failures of the ranks reach the root here rather than ending the program: the loop below recovers from them.
const [failurePort, failures] = Channel.open<MeshFailure>();
setUnhandledFaultHook((failure) => failurePort.send(failure));

const procs = thisHost().spawnProcs({ gpus: RANKS });
const ranks = procs.spawn("dp", DataParallelRank);
const counts = { killed: 0, threw: 0, respawned: 0, retried: 0 };
try {
  let checkpoint = new Float32Array(PARAMS);
  for (let step = 0; step < STEPS; step++) {
    for (let attempt = 1; ; attempt++) {
      assert.ok(attempt <= ATTEMPTS, `step ${step} failed ${ATTEMPTS} times`);
      // The scripted faults happen once each, on the first attempt that gets to them: under the chaos run an attempt
      // may fail before it does (a rank the chaos run killed), and the next attempt then takes them on.
      const failingRank = step === 5 && counts.threw === 0 ? 1 : -1;
      try {
        if (attempt > 1) {
          // Back to the checkpoint, on ranks that all answer (a rank may die here too: then this attempt fails).
          await respawnDead();
          await ranks.load.call(checkpoint);
        }
        const running = ranks.step.call(step, failingRank);
        running.catch(() => {}); // awaited below: its failure while rank 2 is killed is not an unhandled one
        if (step === 3 && counts.killed === 0) {
          killQuietly((await ranks.slice({ gpus: 2 }).pid.callOne()) as number);
          counts.killed++;
        }
        assert.deepEqual((await running).values(), Array(RANKS).fill(step));
        checkpoint = (await ranks.slice({ gpus: 0 }).params.callOne()) as Float32Array;
        break;
      } catch (err) {
        if (!(err instanceof SupervisionError || err instanceof ActorError)) throw err;
        if (failingRank >= 0 && err instanceof ActorError) counts.threw++; // the rank threw (not a death the chaos run caused)
        counts.retried++;
      }
    }
    console.error(`dp-training: step ${step} done`);
  }

  const expected = new Float32Array(PARAMS);
  for (let step = 0; step < STEPS; step++) {
    const sum = new Float32Array(PARAMS);
    for (let rank = 0; rank < RANKS; rank++) {
      const g = gradient(rank, step, PARAMS);
      for (let i = 0; i < PARAMS; i++) sum[i] += g[i];
    }
    for (let i = 0; i < PARAMS; i++) expected[i] -= sum[i] * RATE;
  }
  for (const params of await everyRanksParams(checkpoint)) {
    assert.ok(
      params.every((v, i) => v === expected[i]),
      "a rank's parameters differ from the one-process computation",
    );
  }
  assert.equal(counts.killed, 1);
  assert.equal(counts.threw, 1);
  reportJourney("dp-training", kind, { ranks: RANKS, steps: STEPS, ...counts });
} finally {
  await procs.stop();
  failures.close();
}

/** Every rank's parameters; a rank that died since the last step (under chaos) is respawned and loads `checkpoint`. */
async function everyRanksParams(checkpoint: Float32Array): Promise<Float32Array[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      if (attempt > 1) {
        await respawnDead();
        await ranks.load.call(checkpoint);
      }
      return [...(await ranks.params.call()).values()] as Float32Array[];
    } catch (err) {
      if (!(err instanceof SupervisionError) || attempt === ATTEMPTS) throw err;
    }
  }
}

/** SIGKILLs `pid`, which the chaos run may have killed already (the rank then fails its step either way). */
function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
  }
}

/** Respawns every rank that does not answer (its process died: ours, or the chaos run's). */
async function respawnDead(): Promise<void> {
  for (let rank = 0; rank < RANKS; rank++) {
    try {
      await ranks.slice({ gpus: rank }).pid.callOne();
    } catch (err) {
      if (!(err instanceof SupervisionError)) throw err;
      await ranks.respawn(rank);
      counts.respawned++;
    }
  }
}
