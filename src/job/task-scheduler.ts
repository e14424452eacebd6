// Placement of tasks: the queue of tasks waiting for a worker, sending each to
// the Executor of a worker with room (or ahead of a free slot, for tasks with
// the default request), and a task's resources while it runs, waits at its
// worker or is blocked in get()/wait(). A task whose worker died runs again
// (maxRetries) or fails with SupervisionError.
import { functionLabel } from "../runtime/arity.ts";
import { metricsOn, taskStats } from "../runtime/metrics.ts";
import { locate, type CodeLocation } from "../runtime/code-locator.ts";
import type { ActorMesh } from "../mesh/actor-mesh.ts";
import { ActorError, SupervisionError } from "../mesh/errors.ts";
import type { Executor } from "./executor.ts";
import { ObjectRef } from "./object-ref.ts";
import type { ObjectStore } from "./object-store.ts";
import { TASK_RESOURCES, type Resources, type TaskOptions } from "./options.ts";
import { resolveAll } from "./refs.ts";
import { nameUnsendableArgument } from "./task-args.ts";
import { TaskQueue } from "./task-queue.ts";
import { give, take, type Worker, type WorkerPool } from "./worker-pool.ts";

/** A task function, or where a worker exported it from. */
export type TaskCode = Function | CodeLocation;

/** Where a sent task is: waiting at its worker, running (holding its resources), or blocked in get() (lent them out). */
type TaskState = "prefetched" | "running" | "blocked";

interface Task {
  readonly id: string;
  readonly name: string;
  readonly fn: TaskCode;
  readonly args: readonly unknown[];
  readonly resources: Resources;
  readonly env: Readonly<Record<string, string>> | undefined;
  retriesLeft: number;
}

export class TaskScheduler {
  #executors: ActorMesh<Executor> | null = null;
  #executorSlices: ActorMesh<Executor>[] = [];
  #located = new WeakMap<Function, CodeLocation>();
  #queue = new TaskQueue<Task>();
  /** Queued tasks with a request other than the default's: while none is, a pass stops at the first default task with no room. */
  #othersQueued = 0;
  /** Tasks sent to workers, by id. */
  #running = new Map<string, { worker: Worker; resources: Resources; state: TaskState }>();

  constructor(
    private readonly store: ObjectStore,
    private readonly pool: WorkerPool,
  ) {}

  /** The Executors tasks are sent to: rank `i` runs on worker `i`. */
  useExecutors(executors: ActorMesh<Executor>): void {
    this.#executors = executors;
    this.#executorSlices = [];
  }

  /** Queues a task whose result fills entry `id` of the store. */
  submit(id: string, fn: TaskCode, args: readonly unknown[], options: TaskOptions): void {
    const resources = options.resources ?? TASK_RESOURCES;
    const name = options.name ?? (typeof fn === "function" ? String(fn.name || "task") : fn.exportName);
    const impossible = this.pool.impossible(resources, `task ${name}`);
    if (impossible) {
      this.store.entry(id).reject(impossible);
      if (metricsOn) (taskStats.submitted++, taskStats.failedQueued++);
      return;
    }
    this.#queue.push({ id, name, fn, args, resources, env: options.env, retriesLeft: options.maxRetries ?? 0 });
    if (resources !== TASK_RESOURCES) this.#othersQueued++;
    if (metricsOn) taskStats.submitted++;
    this.#dispatch();
  }

  #dispatch(): void {
    const unplaceable = new Set<Resources>(); // requests that found no room in this pass (tasks share the default's object)
    for (let i = 0; i < this.#queue.length && i < 64; ) {
      const task = this.#queue.at(i);
      const counted = task.resources === TASK_RESOURCES;
      // A counted task goes straight to a worker only if none is waiting there already (they run in order).
      let worker = unplaceable.has(task.resources) ? undefined : this.pool.pick(task.resources, counted);
      const ahead = !worker && counted;
      if (ahead) worker = this.pool.pickAhead();
      if (!worker) {
        // Every task behind this one asks for the default too, so none has room: the pass is over
        // (without this, each submit and each result scanned 64 queued tasks in vain).
        if (counted && this.#othersQueued === 0) break;
        unplaceable.add(task.resources);
        i++;
        continue;
      }
      this.#queue.removeAt(i);
      if (!counted) this.#othersQueued--;
      if (metricsOn) taskStats.dispatched++;
      if (ahead) worker.prefetched++;
      else take(worker, task.resources);
      void this.#execute(task, worker, ahead ? "prefetched" : "running");
    }
  }

  async #execute(task: Task, worker: Worker, state: TaskState): Promise<void> {
    const entry = this.store.entry(task.id);
    const running = { worker, resources: task.resources, state };
    this.#running.set(task.id, running);
    let args = task.args;
    try {
      // Fast path: a function located before and no refs among the arguments need no awaiting.
      const location = typeof task.fn !== "function" ? task.fn : (this.#located.get(task.fn) ?? (await this.#locate(task.fn)));
      if (args.some((a) => a instanceof ObjectRef)) args = await resolveAll(this.store, args);
      const executor = (this.#executorSlices[worker.index] ??= this.#executors!.slice({ workers: worker.index }));
      const counted = task.resources === TASK_RESOURCES; // waits for one of the worker's slots
      entry.resolve(await executor.runTask.callOne(task.id, location.url, location.exportName, args as unknown[], task.env ?? null, counted));
      if (metricsOn) taskStats.done++;
    } catch (err) {
      if (err instanceof SupervisionError && task.retriesLeft > 0 && !entry.settled) {
        task.retriesLeft--;
        if (metricsOn) taskStats.requeued++;
        this.#queue.unshift(task);
        if (task.resources !== TASK_RESOURCES) this.#othersQueued++;
      } else {
        if (metricsOn) taskStats.failedRunning++;
        entry.reject(err instanceof ActorError ? err.cause : nameUnsendableArgument(err, typeof task.fn === "function" ? functionLabel(task.fn) : task.fn.exportName, args));
      }
    } finally {
      this.#running.delete(task.id);
      if (running.state === "running") give(worker, task.resources);
      else if (running.state === "prefetched") worker.prefetched--;
      this.#dispatch();
    }
  }

  async #locate(fn: Function): Promise<CodeLocation> {
    const location = await locate(fn);
    this.#located.set(fn, location);
    return location;
  }

  /** A task sent ahead got its slot: it holds its resources from now on. */
  started(taskId: string): void {
    const running = this.#running.get(taskId);
    if (!running || running.state !== "prefetched") return;
    running.state = "running";
    running.worker.prefetched--;
    take(running.worker, running.resources);
  }

  /**
   * A task waiting in get()/wait() gives its resources back meanwhile (as in
   * Ray), so tasks that wait on tasks they started cannot starve the workers.
   */
  setBlocked(taskId: string | null, blocked: boolean): void {
    const running = taskId === null ? undefined : this.#running.get(taskId);
    if (!running || running.state === "prefetched" || (running.state === "blocked") === blocked) return;
    running.state = blocked ? "blocked" : "running";
    if (blocked) {
      give(running.worker, running.resources);
      this.#dispatch();
    } else take(running.worker, running.resources);
  }

  /** Fails queued tasks that no remaining worker can run (after a worker died). */
  failImpossible(): void {
    this.#queue.retain((task) => {
      const err = this.pool.impossible(task.resources, `task ${task.name}`);
      if (err) this.store.entry(task.id).reject(err);
      if (err && metricsOn) taskStats.failedQueued++;
      return !err;
    });
    this.#othersQueued = 0;
    for (let i = 0; i < this.#queue.length; i++) if (this.#queue.at(i).resources !== TASK_RESOURCES) this.#othersQueued++;
  }
}
