// The JobHead lives in the driver process of a `processes`, `threads` or
// `mesh` job: the job's object store, its workers (an Executor in each) and
// their resources, the task scheduler and the actor registry. The driver calls
// it directly. It is not an actor, so none of its methods can be reached by a
// message: tasks and actors in workers reach it only through the endpoints of
// its HeadActor (head-actor.ts; its endpoints are declared in ../head-endpoints.ts), whose mesh only the job's own code holds.
import type { PortRef } from "../../runtime/face/actors.ts";
import { messageContext, type MessageContext } from "../../runtime/face/procs.ts";
import { kMesh, type ActorMesh } from "../../mesh/actor-mesh.ts";
import type { MeshFailure } from "../../mesh/errors.ts";
import { SupervisionError } from "../../runtime/face/supervision.ts";
import type { ProcMesh } from "../../mesh/proc-mesh.ts";
import type { ActorTarget } from "../actors/actor-ref.ts";
import { ActorRegistry, type ActorCode } from "./actor-registry.ts";
import { Executor } from "../worker/executor.ts";
import type { HeadEndpoints } from "../head-endpoints.ts";
import type { JobKind } from "../job-context.ts";
import type { ObjectRef, OwnerAddress } from "../objects/object-ref.ts";
import { ObjectStore } from "../objects/object-store.ts";
import { LOCAL_OWNERS } from "../objects/ref-counts.ts";
import type { ActorOptions, Resources, TaskOptions } from "../base/options.ts";
import { RefReader } from "../objects/ref-reader.ts";
import { returnIds, taskOfReturn } from "../objects/task-returns.ts";
import { TaskScheduler, type TaskCode } from "../tasks/task-scheduler.ts";
import { taskName } from "../tasks/task-records.ts";
import { HeadStreams } from "../streams/head-streams.ts";
import { kKillProcs } from "../../mesh/proc-mesh.ts";
import { WorkerPool } from "../tasks/worker-pool.ts";
import { OwnerForwards } from "./owner-forwards.ts";

/** The mesh of the workers' Executors; createActor refuses names starting with "fray-", so no actor of the job can pose as it. */
const EXECUTORS = "fray-executors";

export interface HeadSetup {
  /** The job's kind, as tasks and actors see it. */
  readonly kind: JobKind;
  /** Processes to run Executors in; one worker each. */
  readonly procs: ProcMesh;
  /** What each worker offers. */
  readonly capacity: Resources;
  /** The address of the shared namespace its named actors live in, if it has one. */
  readonly namespace: string | null;
}

export class JobHead {
  readonly store = new ObjectStore(true);
  /** Reads this job's refs from its store, and any other job's from that job's head. */
  readonly refs = new RefReader(this.store);
  readonly #pool = new WorkerPool();
  readonly #scheduler = new TaskScheduler(this.refs, this.#pool);
  readonly #streams = new HeadStreams(this.store);
  readonly #actors: ActorRegistry;
  readonly #owner: MessageContext | undefined;
  /** Where the outcomes of nested tasks whose refs workers own go. */
  readonly #forwards = new OwnerForwards();
  #procs: ProcMesh | null = null;

  /** `owner`: the HeadActor's context; what the head spawns is owned there, so its failures reach HeadActor.supervise. */
  constructor(owner: MessageContext | undefined) {
    this.#owner = owner;
    this.#actors = new ActorRegistry(this.refs, this.#pool, (spawn) => this.#asOwner(spawn));
  }

  #asOwner<T>(fn: () => T): T {
    return this.#owner ? messageContext.run(this.#owner, fn) : fn();
  }

  /** Spawns an Executor in every process of `setup.procs`; they message the head through `endpoints`. */
  async setUp(setup: HeadSetup, endpoints: ActorMesh<HeadEndpoints>): Promise<void> {
    this.#procs = setup.procs;
    this.refs.self = endpoints[kMesh].id;
    LOCAL_OWNERS.set(this.refs.self, this.store.counts); // its refs decoded in this process count as its own
    this.refs.onLost = (id, holder) => this.holderLost(id, holder);
    this.#scheduler.lineage.onWorkerDied = (worker) => this.#forwards.holderDied(worker);
    this.#pool.reset(setup.procs.size, setup.capacity);
    this.#actors.useProcs(setup.procs, setup.namespace, [endpoints[kMesh].addrs[0], endpoints[kMesh].id], setup.kind !== "threads");
    // Executors in threads of this process take tiny tasks by a lane of their own (../routes/thread-lane/thread-lane.ts).
    const lanes = setup.kind === "threads" ? this.#scheduler.openLanes() : null;
    const executors = this.#asOwner(() =>
      setup.procs.flatten("workers").spawn(EXECUTORS, Executor, endpoints, setup.capacity.cpu ?? 1, setup.kind, this.#scheduler.resultsPort, lanes),
    );
    // A worker whose force-cancelled task would not end is killed and started again, as the Executors' owner; calls of
    // the actors that die with it say why.
    this.#scheduler.useExecutors(executors, {
      kill: (worker, task) => {
        this.#actors.workerReplaced(executors[kMesh].addrs[worker], task);
        setup.procs.flatten("workers").slice({ workers: worker })[kKillProcs]();
      },
      respawn: (worker) => this.#asOwner(() => executors.respawn(worker)),
    });
    // A worker that dies while starting (killed, out of memory) is started again as one that dies later is (workerDied).
    await executors.initialized.catch((err: unknown) => {
      if (!(err instanceof SupervisionError)) throw err;
    });
  }

  /** A mesh the head spawned failed: a dead worker's tasks are retried or fail with SupervisionError; its actors' calls reject. */
  meshFailed(failure: MeshFailure): void {
    if (failure.meshName !== EXECUTORS) return;
    this.#scheduler.workerDied(failure.rank, failure.cause);
  }

  /**
   * `parent`: the task that submitted it, if any. `owner`: the worker's owner that keeps its ref (or each return's): the
   * head runs the task, sends the owner its outcome and forgets it (owner-forwards.ts). `lostWith`: the worker whose
   * loss of its value the owner makes it anew for.
   */
  submit(
    id: string,
    fn: TaskCode,
    args: readonly unknown[],
    options: TaskOptions & { numReturns?: number },
    parent: string | null = null,
    owner: OwnerAddress | null = null,
    lostWith: number | null = null,
  ): void {
    const n = options.numReturns;
    if (n !== undefined) this.store.split(id, returnIds(id, n), options.name ?? (typeof fn === "function" ? fn.name || "task" : fn.exportName));
    const task = this.#scheduler.submit(id, fn, args, options, parent);
    if (owner === null) return;
    if (task && lostWith !== null) task.lostWith = lostWith; // a run of it that dies of that worker's death spends no retry
    for (const ref of n === undefined ? [id] : returnIds(id, n))
      this.store.forward(ref, (outcome, ok) => this.#forwards.send(owner, ref, outcome, ok, task?.retriesLeft ?? 0));
  }

  /** Task `taskId` (if any) lends its resources out while it waits for values kept elsewhere (its worker's owner's), or takes them back. */
  blocked(taskId: string, blocked: boolean): void {
    this.#scheduler.setBlocked(taskId, blocked);
  }

  /** Submits a streaming task: what it yields is kept as stream `id`. */
  submitStream(id: string, fn: TaskCode, args: readonly unknown[], parent: string | null, window: number, options: TaskOptions): void {
    this.#scheduler.submit(id, fn, args, options, parent, this.#streams.open(id, window, taskName(fn, options)));
  }

  /** Item `index` of stream `id` (its ref id), or null after its last; task `taskId` (if any) lends its resources out meanwhile. */
  streamNext(id: string, index: number, taskId: string | null): Promise<string | null> {
    return this.#blocked(taskId, () => this.#streams.next(id, index, this.#actors.callName(id)));
  }

  /**
   * Cancels the task, stream or actor call of ref `id` (with what it started, if `recursive`; replacing the worker of a
   * task that does not end, if `force`); nothing happens to one that ended.
   */
  cancel(id: string, recursive: boolean, force: boolean): void {
    const task = taskOfReturn(id);
    if (task !== null && this.store.splitting(task)) id = task; // a return of a task that has not ended: the task
    const name = this.#scheduler.cancel(id, recursive, force, this.#actors.callName(id));
    this.#streams.cancel(id, name);
  }

  /** Worker `worker`'s tasks that got a slot there. */
  started(worker: number, started: readonly string[]): void {
    this.#scheduler.started(worker, started);
  }

  /** Worker `worker`'s Executor takes small batches of tasks at `port` (../routes/port-lane.ts). */
  laneOpened(worker: number, port: PortRef): void {
    this.#scheduler.laneOpened(worker, port);
  }

  /** What the head keeps for `ref` (a HeldValue, unread, for a result held by a worker); task `taskId` (if any) lends its resources out meanwhile. */
  get(ref: ObjectRef, taskId: string | null): Promise<unknown> {
    return this.#blocked(taskId, () => this.refs.kept(ref));
  }

  /** The holder of ref `id`'s value, the process at `holder`, is gone: whether it is made anew (../tasks/lineage.ts). */
  holderLost(id: string, holder: string): boolean {
    return this.#scheduler.lineage.holderLost(id, holder);
  }

  /** As RefReader.wait; task `taskId` (if any) lends its resources out meanwhile. */
  wait(refs: readonly ObjectRef[], numReturns: number, timeoutMs: number | undefined, taskId: string | null): Promise<[ObjectRef[], ObjectRef[]]> {
    return this.#blocked(taskId, () => this.refs.wait(refs, numReturns, timeoutMs));
  }

  async #blocked<T>(taskId: string | null, wait: () => Promise<T>): Promise<T> {
    this.#scheduler.setBlocked(taskId, true);
    try {
      return await wait();
    } finally {
      this.#scheduler.setBlocked(taskId, false);
    }
  }

  createActor(Class: ActorCode, args: readonly unknown[], options: ActorOptions): Promise<ActorTarget> {
    return this.#actors.create(Class, args, options);
  }

  callActor(id: string, target: ActorTarget, method: string, args: readonly unknown[]): void {
    this.#actors.call(id, target, method, args);
  }

  /** Calls `method`, an async generator, as stream `id`, at most `window` items ahead of its reader. */
  callActorStream(id: string, target: ActorTarget, method: string, args: readonly unknown[], window: number): void {
    this.#actors.callStream(id, target, method, args, this.#streams.open(id, window, `${target.mesh[kMesh].className}.${method}`));
  }

  killActor(name: string): Promise<void> {
    return this.#actors.kill(name);
  }

  async shutdown(): Promise<void> {
    await this.#actors.close();
    this.#scheduler.stopReplacing(); // the workers that stop now are not started again
    await this.#procs?.stop();
    this.#scheduler.close();
    this.store.close();
    if (this.refs.self !== null) LOCAL_OWNERS.delete(this.refs.self);
  }
}
