// The batches being filled for each worker this tick, and their sending once
// the tick's tasks are all placed: when every argument is plain, by the worker's
// task lane (thread-lane.ts) or port lane (port-lane.ts) when it has one, else
// as a call of its Executor's runBatch (one-way, or acknowledged when some
// argument might not arrive).
import type { Endpoint } from "../../mesh/endpoint.ts";
import type { CodeLocation } from "../../runtime/code/code-locator.ts";
import type { Executor } from "../worker/executor.ts";
import { TaskBatch, type SlotUse } from "../routes/task-batch.ts";
import type { Running } from "./task-records.ts";
import type { PortRef } from "../../runtime/base/messages.ts";
import { HeadPortLanes } from "../routes/port-lane.ts";
import { HeadLanes } from "../routes/thread-lane.ts";
import { ToldFunctions } from "../routes/told-functions.ts";

/** What the outbox needs of the scheduler. */
export interface BatchTarget {
  /** The runBatch endpoint of the Executor of worker `index`, alone (kept: reached through the mesh's Proxy each time, it cost every batch). */
  runBatch(index: number): Endpoint<Parameters<Executor["runBatch"]>, void>;
  /** Sends a task with a call of its own (one its batch could not carry). */
  one(running: Running): void;
  /** A batch's call failed (its worker died, or it was too big): `held` are its tasks. */
  failed(held: readonly Running[], err: unknown): void;
  /** Values of tasks that came back by a lane, flat: number, value, number, value, … */
  laneResults(flat: unknown[]): void;
}

export class BatchOutbox {
  #outgoing: Array<TaskBatch<Running> | undefined> = [];
  #spare: Array<TaskBatch<Running> | undefined> = []; // two arrays taking turns: none made per tick
  #scheduled = false;
  #lanes: HeadLanes | null = null;
  /** The port lanes of Executors in other processes (port-lane.ts). */
  readonly #portLanes = new HeadPortLanes();
  /** The functions each worker was told of by batches sent as calls: later batches name them by number. */
  readonly #told = new ToldFunctions();

  constructor(private readonly target: BatchTarget) {}

  /** Offers Executors in threads of this process lanes: the name of the lobby they announce theirs on. */
  openLanes(): string {
    this.#lanes ??= new HeadLanes((flat) => this.target.laneResults(flat));
    return this.#lanes.lobby;
  }

  /** Worker `worker`'s Executor takes small batches at `port`. */
  openPortLane(worker: number, port: PortRef): void {
    this.#portLanes.open(worker, port);
  }

  /** Worker `index` died: its lane, if it had one, is gone. */
  lost(index: number): void {
    this.#lanes?.lost(index);
    this.#portLanes.lost(index);
    this.#told.lost(index);
  }

  close(): void {
    this.#portLanes.close();
    this.#lanes?.close();
    this.#lanes = null;
  }

  /**
   * Adds `running` to its worker's batch of this tick; or, the only task out
   * on its worker, sends it by the worker's lane at once: a task awaited
   * before the next is submitted then waits for no tick, and its worker starts
   * it while the caller goes on to await it.
   */
  add(location: CodeLocation, running: Running, slot: SlotUse): void {
    const { task, worker } = running;
    const filling = this.#outgoing[worker.index];
    if (filling) return filling.add(location, task.id, running.number, task.args, task.env ?? null, slot, running); // its flush is scheduled
    const batch = new TaskBatch(location, task.id, running.number, task.args, task.env ?? null, slot, running);
    if (worker.sent === 1 && !batch.acked && this.#lanes?.send(worker.index, [batch.fns, batch.tasks], true)) return;
    this.#outgoing[worker.index] = batch;
    if (!this.#scheduled) {
      this.#scheduled = true;
      process.nextTick(this.#flushNow); // after the microtasks queued now: every task placed in this turn
    }
  }

  readonly #flushNow = () => this.#flush();

  /**
   * Sends worker `index` its batch: with arguments that might not arrive, as an acknowledged call; else by its thread
   * lane or its port lane, else as a one-way call. By a lane the first time only if its worker has no task out but
   * these: they then arrive after the ones sent before. A batch that surely arrives (one-way) tells its worker of the
   * functions it names in full (told-functions.ts).
   */
  #send(index: number, batch: TaskBatch<Running>): void {
    const alone = batch.held[0].worker.sent === batch.size;
    if (!batch.acked && this.#lanes?.send(index, [batch.fns, batch.tasks], alone)) return;
    const { fns, telling } = this.#told.name(index, batch, !batch.acked);
    try {
      if (batch.acked)
        return void this.target
          .runBatch(index)
          .callOne(fns, batch.tasks, null)
          .catch((err: unknown) => this.target.failed(batch.held, err));
      // One-way: a batch of plain arguments surely arrives; if its worker dies, workerDied fails its tasks.
      if (!this.#portLanes.send(index, batch.size, [fns, batch.tasks, telling], alone)) this.target.runBatch(index).broadcast(fns, batch.tasks, telling);
    } catch {
      // An argument the codec cannot send: each task goes on its own, to fail with its own error.
      for (const running of batch.held) this.target.one(running);
      return;
    }
    if (telling !== null) this.#told.commit(index, telling);
  }

  /** Sends each worker its batch. */
  #flush(): void {
    this.#scheduled = false;
    const batches = this.#outgoing;
    this.#outgoing = this.#spare;
    try {
      for (let index = 0; index < batches.length; index++) {
        const batch = batches[index];
        if (batch) this.#send(index, batch);
      }
    } finally {
      batches.length = 0;
      this.#spare = batches;
    }
  }
}
