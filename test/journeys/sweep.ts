// Journey 1, a hyperparameter sweep as a Ray Tune user runs one: 12 streaming trials, each reported epoch by epoch
// while it trains; at epoch 3 (the rung) a trial whose loss is over the bar is stopped by leaving its loop —
// the worst half — and the survivors train to the end. Each stream grants a window of one epoch, so a stopped
// trial computes at most one epoch past what was read, and never trains on. A trial whose worker died is
// started again from scratch (as Tune's max_failures does). Exact losses; stopped trials' files show they stopped.
//   node --import tsx test/journeys/sweep.ts threads|processes|mesh
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskCancelledError } from "../../src/job.ts";
import { journeyKind, openJob, reportJourney } from "./journey.ts";
import { EPOCHS, lossOf, trial, type EpochReport } from "./sweep-tasks.ts";

const TRIALS = 12;
const RUNG = 3;
const BAR = 1.8; // |lr − 0.32|·10 + 1/3 over 1.8: the 6 trials furthest from 0.32 stop
const RESTARTS = 3;
const WINDOW = 1;

const kind = journeyKind();
const dir = mkdtempSync(join(tmpdir(), "fray-journey-sweep-"));
const { ctx, close } = await openJob(kind, 4);
const rates = Array.from({ length: TRIALS }, (_, i) => 0.05 * (i + 1));
let restarted = 0;

/** Runs trial `id` to its end or its stop at the rung: the losses read, and whether it was stopped. */
async function runTrial(id: number): Promise<{ losses: number[]; stopped: boolean }> {
  for (let attempt = 0; ; attempt++) {
    const losses: number[] = [];
    try {
      for await (const ref of ctx.createStreamingTask(trial, [id, rates[id], dir], { window: WINDOW })) {
        const report: EpochReport = await ctx.get(ref);
        assert.deepEqual(report, { trial: id, epoch: losses.length + 1, loss: lossOf(rates[id], losses.length + 1) });
        losses.push(report.loss);
        if (report.epoch === RUNG && report.loss > BAR) return { losses, stopped: true }; // leaving the loop stops it
      }
      return { losses, stopped: false };
    } catch (err) {
      if (err instanceof TaskCancelledError || attempt >= RESTARTS) throw err;
      restarted++; // its worker died: train it again from the start
    }
  }
}

try {
  const results = await Promise.all(rates.map((_, id) => runTrial(id)));
  const stopped = results.flatMap((r, id) => (r.stopped ? [id] : []));
  const expectStopped = rates.flatMap((lr, id) => (lossOf(lr, RUNG) > BAR ? [id] : []));
  assert.deepEqual(stopped, expectStopped);
  assert.equal(stopped.length, TRIALS / 2);
  for (const [id, { losses, stopped: wasStopped }] of results.entries()) {
    assert.equal(losses.length, wasStopped ? RUNG : EPOCHS, `trial ${id} read ${losses.length} epochs`);
  }
  await ctx.shutdown(); // every trial's task has ended: nothing more is written to their files
  for (const id of stopped) {
    const epochs = readFileSync(join(dir, `trial-${id}`), "utf8")
      .trim()
      .split("\n")
      .map(Number);
    assert.ok(Math.max(...epochs) <= RUNG + WINDOW, `stopped trial ${id} trained on to epoch ${Math.max(...epochs)}`);
  }
  const best = results.reduce((b, r, id) => (r.losses[EPOCHS - 1] !== undefined && r.losses[EPOCHS - 1] < results[b].losses[EPOCHS - 1] ? id : b), 5);
  reportJourney("sweep", kind, { trials: TRIALS, stopped: stopped.length, best: rates[best], restarted });
} finally {
  await close();
  rmSync(dir, { recursive: true, force: true });
}
