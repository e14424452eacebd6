// Journey 4, RL across cluster jobs on this machine's cluster: a trainer job and three rollout jobs meet at a
// curriculum this driver hosts (client.hostActor); weights go by RemoteBuffer each iteration, straight from the
// trainer's process to the rollouts'. Rollout 2 crashes at iteration CRASH_AT: waitAll must raise at once with
// the crash as the JobFailedError's cause (the others would wait for its report forever), after which the
// driver stops the rest. Every report before the crash matches the same loop replayed in one process. Under the
// chaos run, the jobs' workers are killed under their tasks and the namespace service is killed and started again:
// the results are the same.
//   node --import tsx test/journeys/rl-jobs.ts local
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, Entrypoint, JobFailedError, waitAll } from "../../src/cluster.ts";
import { journeyKind, reportJourney } from "./journey.ts";
import { Curriculum, CURRICULUM_CALLS, replay, rollout, trainer } from "./rl-jobs-jobs.ts";

const ROLLOUTS = 3;
const ITERATIONS = 6;
const CRASH_AT = 3;

const kind = journeyKind(["local"]);
const dir = mkdtempSync(join(tmpdir(), "fray-journey-rl-"));
const client = createClient(`local?dir=${dir}`);
const curriculum = new Curriculum();
const name = "curriculum";
const hosted = await client.hostActor(curriculum, [], { name, maxConcurrency: CURRICULUM_CALLS });
try {
  const jobs = await Promise.all([
    client.submit({ name: "trainer", entrypoint: Entrypoint.fromCallable(trainer, [name, ROLLOUTS, ITERATIONS]) }),
    ...Array.from({ length: ROLLOUTS }, (_, i) =>
      client.submit({ name: `rollout-${i}`, entrypoint: Entrypoint.fromCallable(rollout, [name, i, ITERATIONS, i === 2 ? CRASH_AT : -1]) }),
    ),
  ]);
  let failure: unknown;
  try {
    await waitAll(jobs, { timeout: 300 });
  } catch (err) {
    failure = err;
  }
  assert.ok(failure instanceof JobFailedError, `waitAll ended with ${String(failure)}, not a JobFailedError`);
  const cause = failure.cause as Error | undefined;
  assert.equal(cause?.name, "RolloutCrash", `the JobFailedError's cause is the rollout's error: ${failure.message}`);
  assert.match(cause.message, /rollout 2 lost its simulator at iteration 3/);
  await Promise.all(jobs.map((job) => job.terminate()));

  const expected = replay(ROLLOUTS, CRASH_AT);
  const before = (r: { iteration: number }) => r.iteration < CRASH_AT;
  const got = curriculum.reports.filter(before).sort((a, b) => a.iteration - b.iteration || a.rollout - b.rollout);
  assert.deepEqual(got, expected);
  reportJourney("rl-jobs", kind, { rollouts: ROLLOUTS, iterations: CRASH_AT, reports: got.length });
} finally {
  await hosted.shutdown();
  await client.shutdown();
  rmSync(dir, { recursive: true, force: true });
}
