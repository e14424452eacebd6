// The tasks of a sync job that have not ended, for `cancel`: which one runs the
// code now (AsyncLocalStorage follows it across awaits), the tasks each
// started, and each one's AbortSignal, made only when the task reads it.
import { AsyncLocalStorage } from "node:async_hooks";
import { TaskCancelledError } from "../base/errors.ts";
import { NEVER_ABORTED } from "../base/ambient.ts";

export class SyncTask {
  cancelled = false;
  #controller: AbortController | null = null;
  /** Tasks it started, for a recursive cancel. */
  children: SyncTask[] | null = null;

  constructor(
    readonly id: string,
    readonly name: string,
    /** Rejects the task's ref (and ends its stream) with the cancellation. */
    readonly fail: (error: Error) => void,
  ) {}

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.cancelled) this.#controller.abort(new TaskCancelledError(this.name));
    }
    return this.#controller.signal;
  }

  cancel(): void {
    this.cancelled = true;
    const error = new TaskCancelledError(this.name);
    this.fail(error);
    this.#controller?.abort(error);
  }
}

export class SyncTasks {
  readonly #current = new AsyncLocalStorage<SyncTask>();
  readonly #live = new Map<string, SyncTask>();

  /** Registers the task of ref `id`, as a child of the task running this code, if any. */
  start(id: string, name: string, fail: (error: Error) => void): SyncTask {
    const task = new SyncTask(id, name, fail);
    const parent = this.#current.getStore();
    if (parent) (parent.children ??= []).push(task);
    this.#live.set(id, task);
    return task;
  }

  /** Runs `fn` as `task`: code in it (across awaits) sees its signal and starts its children. */
  run<T>(task: SyncTask, fn: () => T): T {
    return this.#current.run(task, fn);
  }

  end(task: SyncTask): void {
    this.#live.delete(task.id);
  }

  /** The signal of the task running this code. */
  get signal(): AbortSignal {
    return this.#current.getStore()?.signal ?? NEVER_ABORTED;
  }

  /** Cancels the live task of ref `id` (and, if `recursive`, the live tasks it started); false if there is none. */
  cancel(id: string, recursive: boolean): boolean {
    const task = this.#live.get(id);
    if (!task) return false;
    this.#cancel(task, recursive);
    return true;
  }

  #cancel(task: SyncTask, recursive: boolean): void {
    if (this.#live.get(task.id) !== task) return; // ended already
    if (!task.cancelled) task.cancel();
    if (recursive) for (const child of task.children ?? []) this.#cancel(child, true);
  }
}
