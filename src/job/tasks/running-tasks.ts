// The tasks sent to workers and not ended, by ref id and by number (the rank their result arrives at the results
// port as). While any is out, the process is held alive: a batch sent one-way waits on no reply that would.
import { hold, release } from "../../runtime/face/procs.ts";
import type { Running, Task, TaskState } from "./task-records.ts";
import type { Worker } from "./worker-pool.ts";

/** The entry both maps keep, under a key no task has: a Map losing its last entry shrinks (a VM call, a new table). */
const KEPT = Object.freeze({}) as Running;

export class RunningTasks {
  readonly #byId = new Map<string, Running>([["", KEPT]]);
  readonly #byNumber = new Map<number, Running>([[-1, KEPT]]);
  #nextNumber = 0;

  /** `task`, sent to `worker` now, under a new number (a retried task gets a new one, so a stale result is ignored). */
  add(task: Task, worker: Worker, state: TaskState): Running {
    const running: Running = { task, worker, number: this.#nextNumber++, state };
    if (this.#byId.size === 1) hold();
    this.#byId.set(task.id, running);
    this.#byNumber.set(running.number, running);
    return running;
  }

  /** The running task of ref `id`. */
  get(id: string): Running | undefined {
    return id === "" ? undefined : this.#byId.get(id);
  }

  /** The running task whose result arrives as `number`. */
  numbered(number: number): Running | undefined {
    return number === -1 ? undefined : this.#byNumber.get(number);
  }

  /** `running` is still out (not ended, failed or cancelled and sent again meanwhile). */
  has(running: Running): boolean {
    return this.#byId.get(running.task.id) === running;
  }

  delete(running: Running): void {
    this.#byId.delete(running.task.id);
    this.#byNumber.delete(running.number);
    if (this.#byId.size === 1) release();
  }

  /** The tasks out on worker `index`, as a list (its entries are deleted while it is walked). */
  on(index: number): Running[] {
    const on: Running[] = [];
    for (const running of this.#byId.values()) if (running !== KEPT && running.worker.index === index) on.push(running);
    return on;
  }
}
