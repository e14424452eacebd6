// The one seam between placing tasks and moving them: a batch of tasks (task-batch.ts) goes to a worker's
// Executor by a TaskRoute, one implementation per transport — the thread lane (thread-lane/thread-lane.ts), the port lane
// (port-lane.ts), the call of Executor.runBatch (call-route.ts). The outbox (tasks/batch-outbox.ts) offers a batch
// to its routes in that order, cheapest first; the first that can carry it sends it, and the call takes any batch.
// Results come back the one way each route's Executor side sends them: to the head's results port, or (plain
// values of a thread lane's tasks) by the lane, to the same handler.
import type { TaskBatch } from "./task-batch.ts";

export interface TaskRoute<T> {
  /**
   * Sends `batch` to worker `worker`'s Executor, or returns false if this route cannot carry it (the next route then
   * takes it). `alone`: no task of that worker that went by another route is still out, so a first batch by this route
   * cannot overtake one sent before it.
   */
  send(worker: number, batch: TaskBatch<T>, alone: boolean): boolean;
  /** Worker `worker` died: what this route kept of it is gone (a replacement opens its own). */
  lost(worker: number): void;
  close(): void;
}
