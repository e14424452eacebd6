// The route every batch can take: a call of the worker's Executor.runBatch. One-way when every argument surely
// arrives (plain values: if its worker dies, the scheduler fails its tasks), acknowledged when some argument might
// not (too big for a frame, say), so that the call's failure fails its tasks. A one-way batch tells its worker of
// the functions it names in full (told-functions.ts); later batches name them by number.
import type { Endpoint } from "../../mesh/endpoint.ts";
import type { TaskBatch } from "./task-batch.ts";
import type { TaskRoute } from "./task-route.ts";
import type { NamedFunctions, Telling, ToldFunctions } from "./told-functions.ts";

/** What the call route needs of the head: the Executors' runBatch, and what to do with tasks it could not send. */
export interface BatchCalls<T> {
  /** The runBatch endpoint of the Executor of worker `worker`, alone. */
  runBatch(worker: number): Endpoint<[fns: NamedFunctions, tasks: unknown[], telling: Telling], void>;
  /** Sends a task with a call of its own (one its batch could not carry: an argument the codec cannot send). */
  one(held: T): void;
  /** A batch's acknowledged call failed (its worker died, or it was too big): `held` are its tasks. */
  failed(held: readonly T[], err: unknown): void;
}

export class CallRoute<T> implements TaskRoute<T> {
  constructor(
    private readonly told: ToldFunctions,
    private readonly calls: BatchCalls<T>,
  ) {}

  send(worker: number, batch: TaskBatch<T>): boolean {
    const { fns, telling } = this.told.name(worker, batch, !batch.acked);
    try {
      if (batch.acked) {
        this.calls
          .runBatch(worker)
          .callOne(fns, batch.tasks, null)
          .catch((err: unknown) => this.calls.failed(batch.held, err));
        return true;
      }
      this.calls.runBatch(worker).broadcast(fns, batch.tasks, telling);
    } catch {
      // An argument the codec cannot send: each task goes on its own, to fail with its own error.
      for (const held of batch.held) this.calls.one(held);
      return true;
    }
    if (telling !== null) this.told.commit(worker, telling);
    return true;
  }

  lost(): void {}

  close(): void {}
}
