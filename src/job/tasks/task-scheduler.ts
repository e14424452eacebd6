// job/tasks: placing tasks on workers, in the driver (this file, task-records.ts, waiting-tasks.ts, task-queue.ts,
// running-tasks.ts, worker-pool.ts), tasks whose ref arguments are not made yet (argument-waits.ts), the tick's
// batches (batch-outbox.ts; routes in ../routes/), calls of their own (own-calls.ts: code not located yet, refs among
// the arguments, streams), cancels (task-tree.ts, worker-replacement.ts), lost values made anew (lineage.ts), tasks
// sent where their data is (locality.ts); what runs them in a worker is ../worker/. A task holds its resources while
// it runs, waits at its worker (sent ahead of a free slot) or is blocked in get()/wait(); one whose worker died runs
// again (maxRetries) or fails with SupervisionError, and the worker is started again.
import { functionLabel, type PortRef } from "../../runtime/face/actors.ts";
import { taskStats } from "../base/metrics.ts";
import { metricsOn } from "../../runtime/face/metrics.ts";
import type { ActorMesh } from "../../mesh/actor-mesh.ts";
import type { Endpoint } from "../../mesh/endpoint.ts";
import { onRankLost } from "../../mesh/liveness.ts";
import { FrameError } from "../../wire/errors.ts";
import { ActorError, SupervisionError } from "../../mesh/errors.ts";
import type { Executor } from "../worker/executor.ts";
import type { ObjectStore } from "../objects/object-store.ts";
import { TASK_RESOURCES, type Resources, type TaskOptions } from "../base/options.ts";
import type { RefReader } from "../objects/ref-reader.ts";
import { hasRef, nameUnsendableArgument } from "../objects/task-args.ts";
import { BatchOutbox } from "./batch-outbox.ts";
import { OwnCalls, slotUse } from "./own-calls.ts";
import { TASK_HISTORY } from "./task-history.ts";
import { RunningTasks } from "./running-tasks.ts";
import { WaitingTasks } from "./waiting-tasks.ts";
import { give, take, type WorkerPool } from "./worker-pool.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { TaskCancelledError, processDeath } from "../base/errors.ts";
import { forcedCancel, WorkerReplacement, type WorkerReplacer } from "./worker-replacement.ts";
import { TaskTree } from "./task-tree.ts";
import { Lineage } from "./lineage.ts";
import { pickNear } from "./locality.ts";
import { ArgumentWaits } from "./argument-waits.ts";
import { BOOKKEEPING } from "./bookkeeping-probe.ts";
import { countWait, newTask, type Running, type Task, type TaskCode } from "./task-records.ts";

export type { TaskCode };

export class TaskScheduler {
  #executors: ActorMesh<Executor> | null = null;
  #executorSlices: ActorMesh<Executor>[] = [];
  #runBatch: Array<Endpoint<Parameters<Executor["runBatch"]>, void>> = [];
  #queue = new WaitingTasks();
  /** Tasks whose ref arguments are not made yet: they join the queue once they are. */
  readonly #waits: ArgumentWaits;
  #running = new RunningTasks();
  /** Where Executors send the results of batched tasks. */
  readonly resultsPort: PortRef;
  readonly #portId: number;
  readonly #outbox = new BatchOutbox({
    runBatch: (index) => (this.#runBatch[index] ??= this.#executor(index).runBatch),
    one: (running) => void this.#ownCalls.send(running),
    failed: (held, err) => this.#batchFailed(held, err),
    laneResults: (flat) => {
      for (let i = 0; i < flat.length; i += 2) this.#result(flat[i] as number, true, flat[i + 1]);
    },
  });
  /** Tasks that go with a call of their own (not in a batch). */
  readonly #ownCalls: OwnCalls;
  #unwatch: Array<() => void> = [];
  #replacement: WorkerReplacement | null = null;
  #tree = new TaskTree();
  /** Refs cancelled before their task arrived (a nested task's submit is on its way): it never runs. */
  #cancelledEarly = new Set<string>();
  /** Tasks of values held by workers, to run again if a holder is lost. */
  readonly lineage: Lineage;
  private readonly store: ObjectStore;

  constructor(
    private readonly refs: RefReader,
    private readonly pool: WorkerPool,
  ) {
    this.store = refs.store;
    this.#waits = new ArgumentWaits(refs, (task) => this.#failedImpossible(task) || (this.#queue.push(task), this.#dispatch()));
    this.lineage = new Lineage({ store: this.store, rerun: (task) => (this.#queue.unshift(task), this.#dispatch()) });
    this.#ownCalls = new OwnCalls({
      refs,
      running: this.#running,
      runTask: (index) => this.#executor(index).runTask,
      failed: (running, err, args) => this.#failed(running, err, args),
      dispatch: () => this.#dispatch(),
    });
    const proc = currentProc();
    this.#portId = proc.openPort((number, ok, value) => this.#result(number, ok, value));
    this.resultsPort = { addr: proc.addr, id: this.#portId };
    BOOKKEEPING.set(this, () => ({ tree: this.#tree.size, cancelledEarly: this.#cancelledEarly.size }));
  }

  /** The job is ending: a worker that stops or dies from now on is not started again. */
  stopReplacing(): void {
    this.#replacement = (this.#replacement?.end(), null);
  }

  /** The job ended: results that still arrive are dropped, and no worker is replaced any more. */
  close(): void {
    BOOKKEEPING.delete(this);
    this.stopReplacing();
    this.#outbox.close();
    currentProc().closePort(this.#portId);
    for (const unwatch of this.#unwatch.splice(0)) unwatch();
  }

  /** The lobby of the task lanes offered to Executors in threads of this process (../routes/thread-lane/thread-lane.ts). */
  openLanes(): string {
    return this.#outbox.openLanes();
  }

  /** Worker `worker`'s Executor takes small batches at `port` (../routes/port-lane.ts). */
  laneOpened(worker: number, port: PortRef): void {
    this.#outbox.openPortLane(worker, port);
  }

  /** The Executors tasks are sent to: rank `i` runs on worker `i`. */
  useExecutors(executors: ActorMesh<Executor>, replacer: WorkerReplacer | null = null): void {
    this.#executors = executors;
    this.#executorSlices = [];
    this.#runBatch = [];
    this.#replacement =
      replacer && new WorkerReplacement(this.pool, replacer, (index, error) => (error ? this.#failImpossible() : this.#watch(index), this.#dispatch()));
    for (let i = 0; i < executors.size; i++) this.#watch(i);
  }

  /** A batch goes one-way, so no reply fails when its worker's process is lost: this does (a stop included, which supervision does not report). */
  #watch(worker: number): void {
    this.#unwatch.push(onRankLost(this.#executors!, worker, (error) => this.workerDied(worker, error)));
  }

  /** Queues a task whose result fills entry `id`, and returns it (none if cancelled before it came). `parent`: its submitter; `stream`: its port. */
  submit(id: string, fn: TaskCode, args: readonly unknown[], options: TaskOptions, parent: string | null = null, stream: PortRef | null = null) {
    if (this.#cancelledEarly.size !== 0 && this.#cancelledEarly.delete(id)) return undefined; // its ref rejected already
    if (parent !== null && this.#running.get(parent) !== undefined) this.#tree.add(parent, id); // not once its parent ended: its entry would stay forever
    TASK_HISTORY.submitted++;
    if (metricsOn) taskStats.submitted++;
    const task = newTask(id, fn, args, options, stream);
    if (this.#failedImpossible(task) || (hasRef(args) && this.#waits.wait(task))) return task;
    this.#queue.push(task);
    this.#dispatch();
    return task;
  }

  /** Whether no worker could ever run `task`: then its ref rejects, saying why. */
  #failedImpossible(task: Task): boolean {
    const impossible = this.pool.impossible(task.resources, "task", task.name);
    if (!impossible) return false;
    this.store.entry(task.id).reject(impossible);
    TASK_HISTORY.failed(task.id, task.name, impossible, null);
    if (metricsOn) taskStats.failedQueued++;
    return true;
  }

  #dispatch(): void {
    let unplaceable: Set<Resources> | undefined; // requests that found no room in this pass (tasks share the default's object)
    for (let i = 0; i < this.#queue.length && i < 64;) {
      const task = this.#queue.at(i);
      const counted = task.resources === TASK_RESOURCES;
      // A counted task goes straight to a worker only if none is waiting there already (they run in order).
      let worker = unplaceable?.has(task.resources) ? undefined : pickNear(this.pool, this.store, task.args, task.resources, counted);
      const ahead = !worker && counted;
      if (ahead) worker = this.pool.pickAhead();
      if (!worker) {
        // Every task behind this one asks for the default too, so none has room: the pass is over
        // (without this, each submit and each result scanned 64 queued tasks in vain).
        if (counted && this.#queue.others === 0) break;
        (unplaceable ??= new Set()).add(task.resources);
        i++;
        continue;
      }
      this.#queue.removeAt(i);
      if (metricsOn) taskStats.dispatched++;
      if (ahead) worker.prefetched++;
      else take(worker, task.resources);
      worker.sent++;
      this.#send(this.#running.add(task, worker, ahead ? "prefetched" : "running"));
    }
  }

  /** Adds a task to its worker's batch, or sends it on its own when it must wait for its code's location or its refs. */
  #send(running: Running): void {
    const { task } = running;
    const location = typeof task.fn === "function" ? this.#ownCalls.located(task.fn) : task.fn;
    if (!location || task.stream !== null || task.returns !== 0 || hasRef(task.args)) {
      void this.#ownCalls.send(running);
      return;
    }
    this.#outbox.add(location, running, slotUse(running));
  }

  /** A batch's call failed: its tasks still running died with their worker, or (too big together) go one by one. */
  #batchFailed(held: readonly Running[], err: unknown): void {
    for (const running of held) {
      if (!this.#running.has(running)) continue; // reported already
      if (err instanceof FrameError) void this.#ownCalls.send(running);
      else this.#failed(running, err, running.task.args);
    }
    this.#dispatch();
  }

  #executor(index: number): ActorMesh<Executor> {
    return (this.#executorSlices[index] ??= this.#executors!.slice({ workers: index }));
  }

  /** Tasks of worker `worker` that were sent ahead got a slot: they hold their resources from now on. */
  started(worker: number, ids: readonly string[]): void {
    for (const id of ids) {
      const running = this.#running.get(id);
      if (running?.worker.index !== worker || running.state !== "prefetched") continue;
      running.state = "running";
      running.worker.prefetched--;
      take(running.worker, running.task.resources);
    }
  }

  /** The value of task `number`, or what it threw (or why its value could not be sent): every task's comes back here. */
  #result(number: number, ok: boolean, value: unknown): void {
    const running = this.#running.numbered(number);
    if (!running) return; // its worker was declared dead meanwhile
    if (!running.ownCall) this.pool.finished(running.worker); // the pool paces batches by their results alone
    this.#finished(running, ok, value);
    this.#dispatch();
  }

  /** A task's value or what it threw arrived. */
  #finished(running: Running, ok: boolean, value: unknown): void {
    this.#release(running);
    if (running.cancelled) return; // its ref rejected, and the history counted it, when it was cancelled
    const entry = this.store.entry(running.task.id);
    if (ok) {
      this.lineage.finished(running.task, value);
      entry.resolve(value);
      TASK_HISTORY.done++;
      if (metricsOn) taskStats.done++;
    } else {
      entry.reject(value);
      TASK_HISTORY.failed(running.task.id, running.task.name, value, running.worker.index);
      if (metricsOn) taskStats.failedRunning++;
    }
  }

  /** A task's call failed: it runs again if its worker died and it has retries left; else its entry rejects. */
  #failed(running: Running, err: unknown, args: readonly unknown[]): void {
    const { task } = running;
    this.#release(running);
    const entry = this.store.entry(task.id);
    if (err instanceof SupervisionError && task.retriesLeft > 0 && !entry.settled) {
      task.retriesLeft--;
      TASK_HISTORY.retried++;
      if (metricsOn) taskStats.requeued++;
      this.#queue.unshift(task);
    } else {
      if (metricsOn) taskStats.failedRunning++;
      const error =
        err instanceof ActorError ? err.cause : nameUnsendableArgument(err, typeof task.fn === "function" ? functionLabel(task.fn) : task.fn.exportName, args);
      if (!entry.settled) TASK_HISTORY.failed(task.id, task.name, error, running.worker.index);
      entry.reject(error);
    }
  }

  /** A task left its worker: what it held there is free again. */
  #release(running: Running): void {
    this.#running.delete(running);
    this.#tree.ended(running.task.id);
    running.worker.sent--;
    if (running.state === "running") give(running.worker, running.task.resources);
    else if (running.state === "prefetched") running.worker.prefetched--;
  }

  /** A task waiting in get()/wait() gives its resources back meanwhile (as in Ray), so tasks that wait on tasks they started cannot starve the workers. */
  setBlocked(taskId: string | null, blocked: boolean): void {
    const running = taskId === null ? undefined : this.#running.get(taskId);
    if (!running || running.state === "prefetched" || !countWait(running, blocked)) return;
    if (blocked) {
      give(running.worker, running.task.resources);
      this.#dispatch();
    } else take(running.worker, running.task.resources);
  }

  /**
   * Cancels the task of ref `id` (and, if `recursive`, the tasks it submitted, and theirs): a queued one leaves the queue;
   * one at a worker is told to stop (its signal aborts) and its ref rejects at once; with `force`, its worker is replaced
   * if it has not ended within FRAY_CANCEL_GRACE_MS. A ref of no task here (an actor call in flight, named `callName`; a
   * nested task whose submit is on its way) rejects, unless settled (a task that ended). Returns the name of what it
   * cancelled: the task's, else the call's or the ref's.
   */
  cancel(id: string, recursive: boolean, force: boolean, callName?: string): string {
    const running = this.#running.get(id);
    if (running) this.#cancelRunning(running, force);
    const task = running?.task ?? this.#cancelQueued(id);
    const entry = task ? null : this.store.entry(id);
    if (entry && !entry.settled) {
      if (callName === undefined) this.#cancelledEarly.add(id); // an actor call in flight never arrives here as a task
      entry.reject(new TaskCancelledError(callName ?? `ObjectRef(${id})`));
    }
    if (recursive) for (const child of this.#tree.take(id)) this.cancel(child, true, force);
    return task?.name ?? callName ?? `ObjectRef(${id})`;
  }

  #cancelQueued(id: string): Task | undefined {
    const task = this.#queue.take(id) ?? this.#waits.take(id);
    if (!task) return undefined;
    if (metricsOn) taskStats.failedQueued++;
    const reason = new TaskCancelledError(task.name);
    TASK_HISTORY.failed(id, task.name, reason, null);
    this.store.entry(id).reject(reason);
    return task;
  }

  #cancelRunning(running: Running, force: boolean): void {
    const { task, worker } = running;
    // Forced, one that started and does not end is stopped by replacing its worker (a cancel without force may come first).
    // One sent ahead has not started: its worker drops it when it comes to it.
    const replace = () => this.#running.has(running) && running.state !== "prefetched" && this.#replacement?.replace(worker.index, task.name);
    if (force && !running.preparing) this.#replacement?.afterGrace(replace); // a second forced cancel replaces it no sooner
    if (running.cancelled) return;
    running.cancelled = true;
    const reason = new TaskCancelledError(task.name);
    this.store.entry(task.id).reject(reason); // cancelled tasks are not run again (Ray's rule too)
    TASK_HISTORY.failed(task.id, task.name, reason, running.preparing ? null : worker.index);
    if (running.preparing) return (this.#release(running), this.#dispatch()); // it never reached its worker
    if (this.pool.alive(worker.index)) this.#executor(worker.index).cancelTask.broadcast(task.id, reason); // else workerDied ends it
  }

  /** Worker `index` died: its tasks run again (maxRetries) or fail with SupervisionError, as do queued tasks no worker left can run. */
  workerDied(index: number, cause: Error): void {
    if (!this.pool.alive(index)) return; // reported twice (its process lost, then its mesh failed)
    const replacedFor = this.#replacement?.replacedFor(index);
    this.pool.markDead(index, Boolean(this.#replacement)); // it starts again if the job can start workers
    this.#outbox.lost(index);
    for (const running of this.#running.on(index)) {
      if ((running.state === "prefetched" || running.task.lostWith === index) && !running.cancelled) {
        // Sent ahead, it never started, or sent to run again for this death: back to the queue, its retries untouched.
        running.task.lostWith = undefined; // once: a run of it that dies again spends a retry
        this.#release(running);
        this.#queue.unshift(running.task);
        continue;
      }
      const why = replacedFor === undefined ? cause.message : `the worker was replaced to stop ${forcedCancel(replacedFor)}`;
      this.#failed(running, processDeath(`task ${running.task.name} on worker ${index} cannot complete: ${why}`, cause), running.task.args);
    }
    this.lineage.workerDied(index);
    if (this.#replacement) this.#replacement.respawn(index, cause);
    else this.#failImpossible();
    this.#dispatch();
  }

  #failImpossible(): void {
    this.#queue.retain((task) => !this.#failedImpossible(task));
  }
}
