// The tasks waiting for a worker, in order (task-queue.ts), and how many of them ask for something other than
// the default request: while none does, a placement pass stops at the first default task that finds no room.
import { TASK_RESOURCES } from "../base/options.ts";
import type { Task } from "./task-records.ts";
import { TaskQueue } from "./task-queue.ts";

export class WaitingTasks {
  readonly #queue = new TaskQueue<Task>();
  #others = 0;

  get length(): number {
    return this.#queue.length;
  }

  /** Queued tasks whose request is not the default's. */
  get others(): number {
    return this.#others;
  }

  at(i: number): Task {
    return this.#queue.at(i);
  }

  push(task: Task): void {
    this.#queue.push(task);
    if (task.resources !== TASK_RESOURCES) this.#others++;
  }

  /** Puts `task` first (one to run again). */
  unshift(task: Task): void {
    this.#queue.unshift(task);
    if (task.resources !== TASK_RESOURCES) this.#others++;
  }

  removeAt(i: number): void {
    if (this.#queue.at(i).resources !== TASK_RESOURCES) this.#others--;
    this.#queue.removeAt(i);
  }

  /** Removes and returns the task of ref `id`, if it waits here. */
  take(id: string): Task | undefined {
    const task = this.#queue.take((t) => t.id === id);
    if (task && task.resources !== TASK_RESOURCES) this.#others--;
    return task;
  }

  /** Keeps the tasks for which `keep` is true. */
  retain(keep: (task: Task) => boolean): void {
    this.#queue.retain(keep);
    this.#others = 0;
    for (let i = 0; i < this.#queue.length; i++) if (this.#queue.at(i).resources !== TASK_RESOURCES) this.#others++;
  }
}
