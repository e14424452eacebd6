// The long-lived driver journey's tasks and actor (long-driver.ts): plain user code of each kind the driver
// starts again and again.
import { getJobContext } from "../../src/job.ts";
import { Actor, collective } from "../../src/mesh.ts";

export function square(x: number): number {
  return x * x;
}

/** A nested task: asks for square(x) from inside a task. */
export async function squareNested(x: number): Promise<number> {
  const ctx = getJobContext();
  return ctx.get(ctx.run(square, x));
}

/** Counts up with nothing but CPU between yields; its reader leaves early. */
export async function* countUp(n: number): AsyncGenerator<number> {
  for (let i = 0; i < n; i++) {
    let spin = 0;
    for (let k = 0; k < 20_000; k++) spin += k;
    yield i + (spin & 0);
  }
}

/** Waits until its task is cancelled, as a task that honours the signal does. */
export async function untilCancelled(): Promise<string> {
  const { signal } = getJobContext();
  await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
  return "cancelled";
}

export class Tally {
  #total = 0;
  add(k: number): number {
    return (this.#total += k);
  }
}

/** A data-parallel step: every rank's ones summed, answered as whether each element is the rank count. */
export class StepRank extends Actor {
  async step(length: number, ranks: number): Promise<boolean> {
    const grad = new Float32Array(length).fill(1);
    await collective.allReduce(grad);
    return grad.every((v) => v === ranks);
  }
}
