// The batches being filled for each worker this tick, and their sending once
// the tick's tasks are all placed, each by the first of the worker's routes
// (../routes/task-route.ts) that can carry it: its thread lane, its port lane,
// else a call of its Executor's runBatch.
import type { CodeLocation } from "../../runtime/face/code.ts";
import type { PortRef } from "../../runtime/face/actors.ts";
import { CallRoute, type BatchCalls } from "../routes/call-route.ts";
import { HeadPortLanes } from "../routes/port-lane.ts";
import { TaskBatch, type SlotUse } from "../routes/task-batch.ts";
import type { TaskRoute } from "../routes/task-route.ts";
import { HeadLanes } from "../routes/thread-lane/thread-lane.ts";
import { ToldFunctions } from "../routes/told-functions.ts";
import type { Running } from "./task-records.ts";

/** What the outbox needs of the scheduler: the Executors' calls, and where values that came back by a lane go. */
export interface BatchTarget extends BatchCalls<Running> {
  /** Values of tasks that came back by a lane, flat: number, value, number, value, … */
  laneResults(flat: unknown[]): void;
}

export class BatchOutbox {
  #outgoing: Array<TaskBatch<Running> | undefined> = [];
  #spare: Array<TaskBatch<Running> | undefined> = []; // two arrays taking turns: none made per tick
  #scheduled = false;
  /** The functions each worker was told of: batches name them by number (../routes/told-functions.ts). */
  readonly #told = new ToldFunctions();
  /** The thread lanes of Executors in threads of this process, once offered. */
  #lanes: HeadLanes<Running> | null = null;
  /** The port lanes of Executors in other processes. */
  readonly #portLanes = new HeadPortLanes<Running>(this.#told);
  /** The routes a batch is offered, in order: the thread lanes (once offered), the port lanes, the call. */
  #routes: TaskRoute<Running>[];

  constructor(private readonly target: BatchTarget) {
    this.#routes = [this.#portLanes, new CallRoute(this.#told, target)];
  }

  /** Offers Executors in threads of this process lanes: the name of the lobby they announce theirs on. */
  openLanes(): string {
    if (!this.#lanes) {
      this.#lanes = new HeadLanes((flat) => this.target.laneResults(flat));
      this.#routes = [this.#lanes, ...this.#routes];
    }
    return this.#lanes.lobby;
  }

  /** Worker `worker`'s Executor takes small batches at `port`. */
  openPortLane(worker: number, port: PortRef): void {
    this.#portLanes.open(worker, port);
  }

  /** Worker `index` died: what the routes kept of it is gone. */
  lost(index: number): void {
    for (const route of this.#routes) route.lost(index);
    this.#told.lost(index);
  }

  close(): void {
    for (const route of this.#routes) route.close();
    if (this.#lanes) this.#routes = this.#routes.filter((route) => route !== this.#lanes);
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
    if (worker.sent === 1 && this.#lanes?.send(worker.index, batch, true)) return;
    this.#outgoing[worker.index] = batch;
    if (!this.#scheduled) {
      this.#scheduled = true;
      process.nextTick(this.#flushNow); // after the microtasks queued now: every task placed in this turn
    }
  }

  readonly #flushNow = () => this.#flush();

  /**
   * Sends worker `index` its batch by the first route that takes it. By a lane the first time only if its worker has
   * no task out but these (`alone`): they then arrive after the ones sent before.
   */
  #send(index: number, batch: TaskBatch<Running>): void {
    const alone = batch.held[0].worker.sent === batch.size;
    const routes = this.#routes;
    for (let i = 0; i < routes.length; i++) if (routes[i].send(index, batch, alone)) return;
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
