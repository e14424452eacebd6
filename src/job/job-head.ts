// The JobHead lives in the driver process of a `processes`, `threads` or
// `mesh` job. It owns the object store, the worker processes and their
// Executors, and the named actors; it schedules tasks onto workers whose
// resources are free and re-runs a task whose worker died (maxRetries).
// The driver calls it directly; tasks in workers call its endpoints.
import { messageContext, type MessageContext } from "../runtime/context.ts";
import { functionLabel } from "../runtime/arity.ts";
import { load, locate, type CodeLocation } from "../runtime/code-locator.ts";
import { Actor, ActorError, endpoint, SupervisionError, type ActorMesh, type MeshFailure, type ProcMesh } from "../mesh.ts";
import { Executor } from "./executor.ts";
import { ObjectRef } from "./object-ref.ts";
import { ObjectStore, waitFor } from "./object-store.ts";
import { TaskQueue } from "./task-queue.ts";
import { TASK_RESOURCES, type ActorOptions, type Resources, type TaskOptions } from "./options.ts";
import { namedActorExists, resolveAll } from "./refs.ts";
import { nameUnsendableArgument } from "./task-args.ts";

interface Worker {
  readonly index: number;
  readonly capacity: Resources;
  readonly free: Record<string, number>;
  /** Tasks sent ahead, waiting at the worker for one of its slots. */
  prefetched: number;
  alive: boolean;
}

/** Tasks with the default request may be sent this far ahead of a free slot, so a worker never idles between them. */
const PREFETCH = 16;

/** Where a sent task is: waiting at its worker, running (holding its resources), or blocked in get() (lent them out). */
type TaskState = "prefetched" | "running" | "blocked";

interface Task {
  readonly id: string;
  readonly name: string;
  readonly fn: Function | { url: string; exportName: string };
  readonly args: readonly unknown[];
  readonly resources: Resources;
  readonly env: Readonly<Record<string, string>> | undefined;
  retriesLeft: number;
}

export interface HeadSetup {
  /** Processes to run Executors in; one worker each. */
  readonly procs: ProcMesh;
  /** What each worker offers. */
  readonly capacity: Resources;
}

const heads = new Map<string, JobHead>();

export class JobHead extends Actor {
  readonly store = new ObjectStore();
  #context: MessageContext | undefined;
  #executors: ActorMesh<Executor> | null = null;
  #executorSlices: ActorMesh<Executor>[] = [];
  #located = new WeakMap<Function, CodeLocation>();
  #procs: ProcMesh | null = null;
  #workers: Worker[] = [];
  #queue = new TaskQueue<Task>();
  #named = new Map<string, Promise<ActorMesh<object>>>();
  #actorMeshes = new Map<string, { worker: Worker; resources: Resources }>();
  /** Tasks sent to workers, by id. */
  #running = new Map<string, { worker: Worker; resources: Resources; state: TaskState }>();
  #actors = 0;

  constructor(readonly token: string) {
    super();
    // Work the driver asks for directly runs as this actor, so what it spawns is owned here.
    this.#context = messageContext.getStore();
    heads.set(token, this);
  }

  /** The head created with `token` in this process. */
  static byToken(token: string): JobHead | undefined {
    return heads.get(token);
  }

  #asOwner<T>(fn: () => T): T {
    return this.#context ? messageContext.run(this.#context, fn) : fn();
  }

  /** Spawns an Executor in every process of `setup.procs`. */
  async setUp(setup: HeadSetup, self: ActorMesh<JobHead>): Promise<void> {
    this.#procs = setup.procs;
    this.#workers = Array.from({ length: setup.procs.size }, (_, index) => ({ index, capacity: setup.capacity, free: { ...setup.capacity }, prefetched: 0, alive: true }));
    this.#executors = this.#asOwner(() => setup.procs.flatten("workers").spawn("fray-executors", Executor, self, setup.capacity.cpu ?? 1));
    await this.#executors.initialized;
  }

  supervise(failure: MeshFailure): boolean {
    if (failure.meshName === "fray-executors") {
      const worker = this.#workers[failure.rank];
      if (worker) worker.alive = false;
      this.#failImpossible();
    }
    return true; // a dead worker's tasks are retried or fail with SupervisionError; its actors' calls reject
  }

  // --- tasks ---

  submit(id: string, fn: Task["fn"], args: readonly unknown[], options: TaskOptions): void {
    const resources = options.resources ?? TASK_RESOURCES;
    const name = options.name ?? ("name" in fn ? String((fn as Function).name || "task") : fn.exportName);
    const impossible = this.#impossible(resources, `task ${name}`);
    if (impossible) {
      this.store.entry(id).reject(impossible);
      return;
    }
    this.#queue.push({ id, name, fn, args, resources, env: options.env, retriesLeft: options.maxRetries ?? 0 });
    this.#dispatch();
  }

  #dispatch(): void {
    const unplaceable = new Set<Resources>(); // requests that found no room in this pass (tasks share the default's object)
    for (let i = 0; i < this.#queue.length && i < 64; ) {
      const task = this.#queue.at(i);
      const counted = task.resources === TASK_RESOURCES;
      // A counted task goes straight to a worker only if none is waiting there already (they run in order).
      let worker = unplaceable.has(task.resources) ? undefined : this.#pick(task.resources, counted);
      const ahead = !worker && counted;
      if (ahead) worker = this.#pickAhead();
      if (!worker) {
        unplaceable.add(task.resources);
        i++;
        continue;
      }
      this.#queue.removeAt(i);
      if (ahead) worker.prefetched++;
      else take(worker.free, task.resources);
      void this.#execute(task, worker, ahead ? "prefetched" : "running");
    }
  }

  /** The alive worker able to run default tasks with the fewest sent ahead, if any has room for one more. */
  #pickAhead(): Worker | undefined {
    let best: Worker | undefined;
    for (const w of this.#workers) {
      if (!w.alive || w.prefetched >= PREFETCH || !fits(w.capacity, TASK_RESOURCES)) continue;
      if (!best || w.prefetched < best.prefetched) best = w;
    }
    return best;
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
    } catch (err) {
      if (err instanceof SupervisionError && task.retriesLeft > 0 && !entry.settled) {
        task.retriesLeft--;
        this.#queue.unshift(task);
      } else entry.reject(err instanceof ActorError ? err.cause : nameUnsendableArgument(err, typeof task.fn === "function" ? functionLabel(task.fn) : task.fn.exportName, args));
    } finally {
      this.#running.delete(task.id);
      if (running.state === "running") give(worker.free, task.resources);
      else if (running.state === "prefetched") worker.prefetched--;
      this.#dispatch();
    }
  }

  /** A task sent ahead got its slot: it holds its resources from now on. */
  #started(taskId: string): void {
    const running = this.#running.get(taskId);
    if (!running || running.state !== "prefetched") return;
    running.state = "running";
    running.worker.prefetched--;
    take(running.worker.free, running.resources);
  }

  /**
   * A task waiting in get()/wait() gives its resources back meanwhile (as in
   * Ray), so tasks that wait on tasks they started cannot starve the workers.
   */
  #setBlocked(taskId: string | null, blocked: boolean): void {
    const running = taskId === null ? undefined : this.#running.get(taskId);
    if (!running || running.state === "prefetched" || (running.state === "blocked") === blocked) return;
    running.state = blocked ? "blocked" : "running";
    if (blocked) {
      give(running.worker.free, running.resources);
      this.#dispatch();
    } else take(running.worker.free, running.resources);
  }

  async #locate(fn: Function): Promise<CodeLocation> {
    const location = await locate(fn);
    this.#located.set(fn, location);
    return location;
  }

  /** The alive worker with room for `request` and the most free cpu (with no task waiting there, if `idleOnly`). */
  #pick(request: Resources, idleOnly = false): Worker | undefined {
    let best: Worker | undefined;
    for (const w of this.#workers) {
      if (!w.alive || !fits(w.free, request) || (idleOnly && w.prefetched > 0)) continue;
      if (!best || (w.free.cpu ?? 0) > (best.free.cpu ?? 0)) best = w;
    }
    return best;
  }

  /** An error naming the resource when no alive worker could ever satisfy `request`. */
  #impossible(request: Resources, what: string): Error | null {
    const alive = this.#workers.filter((w) => w.alive);
    if (alive.some((w) => fits(w.capacity, request))) return null;
    if (alive.length === 0) return new SupervisionError(`${what} cannot run: every worker of this job has died`);
    const short = Object.keys(request).find((r) => !alive.some((w) => (w.capacity[r] ?? 0) >= request[r])) ?? Object.keys(request)[0];
    const most = Math.max(...alive.map((w) => w.capacity[short] ?? 0));
    return new RangeError(`${what} requests ${short}: ${request[short]}, but no worker has that much (the most any worker offers is ${short}: ${most}); lower the request or give workers more (resources option of createJobContext)`);
  }

  /** Fails queued tasks that no remaining worker can run. */
  #failImpossible(): void {
    this.#queue.retain((task) => {
      const err = this.#impossible(task.resources, `task ${task.name}`);
      if (err) this.store.entry(task.id).reject(err);
      return !err;
    });
  }

  // --- actors ---

  createActor(Class: Function | { url: string; exportName: string }, args: readonly unknown[], options: ActorOptions): Promise<ActorMesh<object>> {
    const { name } = options;
    if (name !== undefined && this.#named.has(name)) {
      if (options.getIfExists) return this.#named.get(name)!;
      return Promise.reject(namedActorExists(name));
    }
    const created = this.#spawnActor(Class, args, options);
    if (name !== undefined) {
      this.#named.set(name, created);
      created.catch(() => this.#named.delete(name));
    }
    return created;
  }

  async #spawnActor(Class: Function | { url: string; exportName: string }, args: readonly unknown[], options: ActorOptions): Promise<ActorMesh<object>> {
    const resources = options.resources ?? {};
    const label = options.name ?? (typeof Class === "function" ? Class.name : Class.exportName);
    const impossible = this.#impossible(resources, `actor ${label}`);
    if (impossible) throw impossible;
    const worker = this.#pick(resources);
    if (!worker) throw new RangeError(`actor ${label} requests ${JSON.stringify(resources)}, which no worker has free now`);
    take(worker.free, resources);
    try {
      const Ctor = (typeof Class === "function" ? Class : await load(Class)) as new (...a: unknown[]) => object;
      const values = await resolveAll(this.store, args);
      const meshName = options.name ?? `actor-${this.#actors++}`;
      const procs = this.#procs!.flatten("workers").slice({ workers: worker.index });
      const mesh = this.#asOwner(() => procs.spawn(meshName, Ctor, ...(values as never[])));
      await mesh.initialized.catch((err: unknown) => {
        throw err instanceof ActorError ? err.cause : err;
      });
      this.#actorMeshes.set(meshName, { worker, resources });
      return mesh as ActorMesh<object>;
    } catch (err) {
      give(worker.free, resources);
      throw err;
    }
  }

  callActor(id: string, mesh: ActorMesh<object>, method: string, args: readonly unknown[]): void {
    const entry = this.store.entry(id);
    resolveAll(this.store, args)
      .then((values) => ((mesh as unknown as Record<string, { callOne(...a: unknown[]): Promise<unknown> }>)[method]).callOne(...values))
      .then(entry.resolve, (err: unknown) => entry.reject(err instanceof ActorError ? err.cause : err));
  }

  async shutdown(): Promise<void> {
    heads.delete(this.token);
    await this.#procs?.stop();
  }

  // --- endpoints for tasks and actors running in workers ---

  @endpoint({ concurrent: true })
  remoteSubmit(id: string, url: string, exportName: string, args: unknown[], options: TaskOptions): void {
    this.submit(id, { url, exportName }, args, options);
  }

  @endpoint({ concurrent: true })
  remoteStarted(taskId: string): void {
    this.#started(taskId);
  }

  @endpoint({ concurrent: true })
  remoteFail(id: string, error: Error): void {
    this.store.entry(id).reject(error);
  }

  @endpoint({ concurrent: true })
  async remoteGet(id: string, taskId: string | null): Promise<unknown> {
    this.#setBlocked(taskId, true);
    try {
      return await this.store.entry(id).promise;
    } finally {
      this.#setBlocked(taskId, false);
    }
  }

  @endpoint({ concurrent: true })
  async remoteWait(ids: string[], numReturns: number, timeoutMs: number | null, taskId: string | null): Promise<[string[], string[]]> {
    this.#setBlocked(taskId, true);
    try {
      return await waitFor(this.store, ids, numReturns, timeoutMs ?? undefined);
    } finally {
      this.#setBlocked(taskId, false);
    }
  }

  @endpoint({ concurrent: true })
  remotePut(id: string, value: unknown): void {
    this.store.entry(id).resolve(value);
  }

  @endpoint({ concurrent: true })
  remoteCreateActor(url: string, exportName: string, args: unknown[], options: ActorOptions): Promise<ActorMesh<object>> {
    return this.createActor({ url, exportName }, args, options);
  }

  @endpoint({ concurrent: true })
  remoteCallActor(id: string, mesh: ActorMesh<object>, method: string, args: unknown[]): void {
    this.callActor(id, mesh, method, args);
  }
}

function fits(free: Resources, request: Resources): boolean {
  for (const r in request) if ((free[r] ?? 0) < request[r]) return false;
  return true;
}

function take(free: Record<string, number>, request: Resources): void {
  for (const r in request) free[r] = (free[r] ?? 0) - request[r];
}

function give(free: Record<string, number>, request: Resources): void {
  for (const r in request) free[r] = (free[r] ?? 0) + request[r];
}
