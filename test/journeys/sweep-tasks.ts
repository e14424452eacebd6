// The sweep journey's trial (sweep.ts): a training run as users write it — each epoch is synchronous work (no
// await between yields), its loss a function of the trial's learning rate and the epoch, so the driver knows
// every exact value. Each epoch is recorded in a file before it is yielded, so the driver can tell how far a
// stopped trial went.
import { appendFileSync } from "node:fs";
import { join } from "node:path";

export const EPOCHS = 6;

/** The loss of a trial with learning rate `lr` after epoch `epoch` (1-based). */
export function lossOf(lr: number, epoch: number): number {
  return Math.abs(lr - 0.32) * 10 + 1 / epoch;
}

export interface EpochReport {
  readonly trial: number;
  readonly epoch: number;
  readonly loss: number;
}

export async function* trial(id: number, lr: number, dir: string): AsyncGenerator<EpochReport> {
  for (let epoch = 1; epoch <= EPOCHS; epoch++) {
    const until = performance.now() + 25; // an epoch's worth of compute, with nothing awaited
    let work = 0;
    while (performance.now() < until) work++;
    appendFileSync(join(dir, `trial-${id}`), `${epoch}\n`);
    yield { trial: id, epoch, loss: lossOf(lr, epoch) + (work & 0) };
  }
}
