// Lineage (docs/design/object-store.md): a result that stayed in its worker (a HeldValue) is lost with that worker.
// The head keeps the task that made each such value while the task has retries left (maxRetries), and when the
// holder is reported gone — by the worker's death or by a reader whose read failed — makes the ref's entry pending
// again and queues the task once more; readers then wait for the new value. Without retries left the value stays
// lost, and its readers get ObjectLostError. A task with several returns (numReturns) runs again whole, once for all
// of its returns that were lost; the returns that were not keep their values (the store frees the new ones).
import { HeldValue } from "../objects/held-value.ts";
import type { ObjectStore } from "../objects/object-store.ts";
import { returnIds } from "../objects/task-returns.ts";
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
  /** Refs whose task runs again, and that task: a second report of their loss changes nothing. */
  readonly #rebuilding = new Map<string, Task>();

  constructor(private readonly host: LineageHost) {
    host.store.onHeldFreed = (id) => this.#tasks.delete(id);
  }

  /** Task `task` ended with `value` (with several returns: an array of them): a held value is kept rebuildable while its task has retries left. */
  finished(task: Task, value: unknown): void {
    task.lostWith = undefined;
    if (this.#rebuilding.size !== 0) for (const [id, t] of this.#rebuilding) if (t === task) this.#rebuilding.delete(id);
    if (task.retriesLeft <= 0) return;
    // A nested task's values go to their owner, which keeps its lineage (../worker/nested-tasks.ts): not kept here.
    const { store } = this.host;
    if (task.returns === 0) {
      if (value instanceof HeldValue && !store.forwarding(task.id)) this.#tasks.set(task.id, task);
    } else if (Array.isArray(value)) {
      for (const v of value) if (v instanceof HeldValue && !store.forwarding(v.refId)) this.#tasks.set(v.refId, task);
    }
  }

  /**
   * The holder of ref `id`'s value is gone (the process at `holder`, if a reader names it): whether its task runs again
   * (or already does) to make it anew, or did already — a reader given the value before its holder died may report it
   * after the value was made anew elsewhere, which must not spend another retry.
   */
  holderLost(id: string, holder?: string): boolean {
    if (this.#rebuilding.has(id)) return true;
    const held = this.host.store.held(id);
    if (holder !== undefined && held instanceof HeldValue && held.buffer.owner !== holder) return true;
    const task = this.#tasks.get(id);
    if (!task || !(held instanceof HeldValue)) return false;
    // A task with several returns may run again already, for another of them: this one comes from that run too.
    const running = task.returns !== 0 && [...this.#rebuilding.values()].includes(task);
    if (!running && task.retriesLeft <= 0) return false;
    this.#tasks.delete(id);
    this.#rebuilding.set(id, task);
    this.host.store.reopen(id);
    if (task.returns !== 0) this.host.store.split(task.id, returnIds(task.id, task.returns), task.name, [id]);
    if (running) return true;
    task.lostWith = held.worker;
    task.retriesLeft--;
    TASK_HISTORY.retried++;
    this.host.rerun(task);
    return true;
  }

  /** Told when a worker died, after this head's own values it held: the owners of nested tasks' values make theirs anew. */
  onWorkerDied: ((worker: number) => void) | null = null;

  /** Worker `worker` died: every value it held whose task may run again is made anew. */
  workerDied(worker: number): void {
    for (const id of [...this.#tasks.keys()]) if (this.host.store.held(id)?.worker === worker) this.holderLost(id);
    this.onWorkerDied?.(worker);
  }
}
