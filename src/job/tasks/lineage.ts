// Lineage (docs/design/object-store.md): a result that stayed in its worker (a HeldValue) is lost with that worker.
// The head keeps the task that made each such value while the task has retries left (maxRetries), and when the
// holder is reported gone — by the worker's death or by a reader whose read failed — makes the ref's entry pending
// again and queues the task once more; readers then wait for the new value. Without retries left the value stays
// lost, and its readers get ObjectLostError.
import { HeldValue } from "../objects/held-value.ts";
import type { ObjectStore } from "../objects/object-store.ts";
import { TASK_HISTORY } from "./task-history.ts";
import type { Task } from "./task-records.ts";

export interface LineageHost {
  readonly store: ObjectStore;
  /** Queues `task` to run again (ahead of the others). */
  rerun(task: Task): void;
}

export class Lineage {
  /** The tasks of held values that may run again, by ref id. */
  readonly #tasks = new Map<string, Task>();
  /** Refs whose task runs again: a second report of their loss changes nothing. */
  readonly #rebuilding = new Set<string>();

  constructor(private readonly host: LineageHost) {
    host.store.onHeldFreed = (id) => this.#tasks.delete(id);
  }

  /** Task `task` ended with `value`: a held value is kept rebuildable while its task has retries left. */
  finished(task: Task, value: unknown): void {
    if (this.#rebuilding.size !== 0) this.#rebuilding.delete(task.id);
    if (value instanceof HeldValue && task.retriesLeft > 0) this.#tasks.set(task.id, task);
  }

  /** The holder of ref `id`'s value is gone: whether its task runs again (or already does) to make it anew. */
  holderLost(id: string): boolean {
    if (this.#rebuilding.has(id)) return true;
    const task = this.#tasks.get(id);
    if (!task || task.retriesLeft <= 0 || !(this.host.store.held(id) instanceof HeldValue)) return false;
    this.#tasks.delete(id);
    this.#rebuilding.add(id);
    this.host.store.reopen(id);
    task.retriesLeft--;
    TASK_HISTORY.retried++;
    this.host.rerun(task);
    return true;
  }

  /** Worker `worker` died: every value it held whose task may run again is made anew. */
  workerDied(worker: number): void {
    for (const id of [...this.#tasks.keys()]) if (this.host.store.held(id)?.worker === worker) this.holderLost(id);
  }
}
