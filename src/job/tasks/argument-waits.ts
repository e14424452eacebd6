// Tasks whose ref arguments are not made yet wait here, off the queue, until each of those values has settled (Ray's
// dependency manager): a worker is picked only once the values exist, so the task goes where they are (locality.ts)
// or to a free worker, and it holds no worker's slot meanwhile — a task sent to a worker before its arguments were
// made kept that slot idle, even from the task that would make them, and tasks sent ahead together piled up on one
// worker. A value that failed settles too: the task is sent, and fails with that error as before. A ref of another
// job is read when the task is sent, as before.
import { ObjectRef } from "../objects/object-ref.ts";
import type { RefReader } from "../objects/ref-reader.ts";
import type { Task } from "./task-records.ts";

export class ArgumentWaits {
  readonly #waiting = new Map<string, Task>();

  constructor(
    private readonly refs: RefReader,
    /** `task`'s arguments have settled: it waits for a worker now. */
    private readonly ready: (task: Task) => void,
  ) {}

  /** Whether `task` waits for some of its arguments: if so it waits here, and goes to `ready` once they have settled. */
  wait(task: Task): boolean {
    let pending: Array<Promise<unknown>> | null = null;
    for (const arg of task.args) {
      const made = arg instanceof ObjectRef ? this.refs.pending(arg) : null;
      if (made !== null) (pending ??= []).push(made);
    }
    if (pending === null) return false;
    this.#waiting.set(task.id, task);
    void Promise.allSettled(pending).then(() => this.#waiting.delete(task.id) && this.ready(task));
    return true;
  }

  /** Removes and returns the task of ref `id` if it waits here (cancelled). */
  take(id: string): Task | undefined {
    const task = this.#waiting.get(id);
    this.#waiting.delete(id);
    return task;
  }

  get size(): number {
    return this.#waiting.size;
  }
}
