// The JobContext of tasks and actors running in a worker: every operation is
// a message to the job's head in the driver, but `put`, whose value this worker's
// owner keeps (worker-owner.ts), and `get`/`wait` of such a value. A `run` is a message
// to the head, which schedules it, but its ref is this worker's owner's too. Ids are
// made here, so `run` and `put` return at once and their messages need no reply.
import { locate } from "../../runtime/face/code.ts";
import type { ActorMesh } from "../../mesh/actor-mesh.ts";
import { ActorError } from "../../mesh/errors.ts";
import { checkMethodArity, functionLabel } from "../../runtime/face/actors.ts";
import { actorHandle, type ActorHandle } from "../actors/actor-handle.ts";
import { ActorRef, callThroughHead, kHandleFor, type ActorTarget } from "../actors/actor-ref.ts";
import { NEVER_ABORTED } from "../base/ambient.ts";
import type { ActorClass } from "../actors/actor-handle.ts";
import type { CancelOptions, JobContext, JobKind, StreamingFunction, TaskFunction } from "../job-context.ts";
import { JobContextBase, kReturnRef, kSubmit, kSubmitStream, kWaitFor } from "../job-context-base.ts";
import type { HeadEndpoints } from "../head-endpoints.ts";
import { headOwner, kOwner, madeHere, ObjectRef, type RefOwner } from "../objects/object-ref.ts";
import { ObjectStore, waitFor } from "../objects/object-store.ts";
import { LOCAL_WORKER_REFS } from "../objects/owned-refs.ts";
import { RefReader } from "../objects/ref-reader.ts";
import type { WorkerRefs } from "./worker-owner.ts";
import { cancelTarget, ObjectRefStream } from "../objects/object-ref-stream.ts";
import { checkCancelOptions, checkResources, returnsOf, type ActorOptions, type TaskOptions } from "../base/options.ts";
import { returnIds } from "../objects/task-returns.ts";
import { nameUnsendableArgument } from "../objects/task-args.ts";
import { HeldValue, readHeld } from "../objects/held-value.ts";
import { keptValue } from "../objects/kept-values.ts";
import { kKept } from "../actors/actor-call-endpoint.ts";
import { currentProc } from "../../runtime/face/procs.ts";

/** Reads refs workers' owners keep (../objects/ref-reader.ts): from this process's owner, or asked of another's. */
const ownedReader = new RefReader(new ObjectStore());

/** What a task's Executor lends its context: the task's AbortSignal, made when the task first reads it. */
export interface TaskControls {
  signalFor(taskId: string): AbortSignal;
}

/** A running task's slot in its Executor, lent out while the task waits. */
export interface TaskSlot {
  block(): void;
  unblock(): void;
}

// The head's mesh, the task and its slot are private fields: user code that
// holds this context (getJobContext() in a task) sees the JobContext API only,
// never a way to message the head's endpoints directly.
export class RemoteJobContext extends JobContextBase implements JobContext {
  readonly #head: ActorMesh<HeadEndpoints>;
  /** The head owns the refs of streams and actor calls made here, and actor handles. */
  readonly #owner: RefOwner;
  readonly #taskId: string | null;
  readonly #slot: TaskSlot | null;
  readonly #controls: TaskControls | null;
  /** This worker's index, if a large actor-call result stays here (../objects/held-value.ts); -1: every value goes to the head. */
  readonly #holder: number;
  /** The owner of this worker's puts and nested tasks' refs. */
  readonly #refs: WorkerRefs;

  /**
   * `taskId`: the task this context runs, whose resources (and `slot`) are given back while it waits; `controls`: its
   * Executor's; `refs`: this worker's owner, which knows whether it keeps large values (its holder index, else -1).
   */
  constructor(
    head: ActorMesh<HeadEndpoints>,
    readonly kind: JobKind,
    taskId: string | null,
    slot: TaskSlot | null,
    controls: TaskControls | null,
    refs: WorkerRefs,
  ) {
    super();
    this.#head = head;
    this.#owner = headOwner(head);
    this.#taskId = taskId;
    this.#slot = slot;
    this.#controls = controls;
    this.#refs = refs;
    this.#holder = refs.holder;
  }

  get signal(): AbortSignal {
    return this.#taskId !== null && this.#controls ? this.#controls.signalFor(this.#taskId) : NEVER_ABORTED;
  }

  /** Runs `wait` with this task's slot lent out. */
  async #blocked<T>(wait: () => Promise<T>): Promise<T> {
    this.#slot?.block();
    try {
      return await wait();
    } finally {
      this.#slot?.unblock();
    }
  }

  /**
   * A nested task: its ref (or each return's) is owned by this worker's owner (worker-owner.ts), pending until the head,
   * which schedules the task, sends the owner its outcome; the owner keeps its lineage.
   */
  protected [kSubmit](fn: TaskFunction, args: unknown[], options: TaskOptions): ObjectRef {
    const ref = new ObjectRef(currentProc().nextId(), this.#refs.owner);
    const n = returnsOf(options);
    if (n === 0) this.#refs.entries.expect(ref);
    // A task that never reaches the head fails its ref, or, with several returns, each of theirs (its own is never read).
    const fail = (err: unknown) => {
      const error = nameUnsendableArgument(err, functionLabel(fn), args) as Error;
      for (const id of n === 0 ? [ref.id] : returnIds(ref.id, n)) this.#refs.entries.settle(id, false, error);
    };
    locate(fn).then(({ url, exportName }) => this.#refs.nested.submit(ref.id, url, exportName, args, options, this.#taskId, fail), fail);
    return ref;
  }

  /** A return of a nested task: pending at this worker's owner, as the task's own ref would be. */
  protected override [kReturnRef](task: ObjectRef, id: string): ObjectRef {
    return this.#refs.entries.expect(super[kReturnRef](task, id));
  }

  protected [kSubmitStream](fn: StreamingFunction, args: unknown[], window: number, options: TaskOptions): ObjectRefStream<unknown> {
    const ref = this.#newRef() as ObjectRef<number>;
    const fail = (err: unknown) => this.#head.remoteFail.broadcast(ref.id, nameUnsendableArgument(err, functionLabel(fn), args) as Error);
    locate(fn).then(({ url, exportName }) => {
      try {
        this.#head.remoteSubmitStream.broadcast(ref.id, url, exportName, args, this.#taskId, window, options);
      } catch (err) {
        fail(err);
      }
    }, fail);
    return this.#stream(ref);
  }

  /** The reading side of stream `ref`, whose items the head keeps: each asked for in turn, this task's resources lent out meanwhile. */
  #stream<T>(ref: ObjectRef<number>): ObjectRefStream<T> {
    return new ObjectRefStream<T>(
      ref,
      {
        next: async (index) => {
          const id = await this.#blocked(() => unwrap(this.#head.remoteStreamNext.callOne(ref.id, index, this.#taskId)));
          return id === null ? null : this.#counted(new ObjectRef(id, this.#owner)); // the head counted its borrow as it answered
        },
        cancel: () => this.cancel(ref),
      },
      this.#dropped(ref.id),
    );
  }

  /** What stream `id` dropped unread does: the head cancels it (the closure holds the id, not the ref, which may then be collected). */
  #dropped(id: string): () => void {
    return () => void unwrap(this.#head.remoteCancel.callOne(id, true)).catch(() => {});
  }

  cancel(target: ObjectRef | ObjectRefStream<unknown>, options: CancelOptions = {}): Promise<void> {
    let ref: ObjectRef;
    try {
      ref = cancelTarget(target);
      checkCancelOptions(options);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    const owner = ref[kOwner];
    if (owner.head === null) return Promise.reject(new Error(`${ref} belongs to a sync job context in another process; it cannot be cancelled from here`));
    return unwrap(owner.head.remoteCancel.callOne(ref.id, options.recursive ?? true, options.force ?? false));
  }

  get(value: unknown): Promise<never> {
    if (!(value instanceof ObjectRef) && !Array.isArray(value)) return Promise.resolve(value as never);
    // A ref a worker's owner keeps: this process's answers here, with no message; another's is asked of its owner. A
    // get that must wait (a nested task not done, a value held elsewhere) lends this task's slot out, once for all.
    if (mustWait(value)) return this.#waitHere(() => this.#read(value)) as Promise<never>;
    return this.#read(value) as Promise<never>;
  }

  #read(value: unknown): Promise<unknown> {
    if (value instanceof ObjectRef) {
      if (!isWorkerOwned(value)) return this.#blocked(() => getFromHead(this.#head, value, this.#taskId));
      return ownedReader.value(value);
    }
    if (Array.isArray(value)) return Promise.all(value.map((v) => this.#read(v)));
    return Promise.resolve(value);
  }

  /** Runs `wait`, for values a worker's owner keeps, with this task's slot lent out (the head told: it may place others meanwhile). */
  async #waitHere<T>(wait: () => Promise<T>): Promise<T> {
    const taskId = this.#taskId;
    this.#slot?.block();
    if (taskId !== null) this.#head.remoteBlocked.broadcast(taskId, true);
    try {
      return await wait();
    } finally {
      this.#slot?.unblock();
      if (taskId !== null) this.#head.remoteBlocked.broadcast(taskId, false);
    }
  }

  protected async [kWaitFor](refs: readonly ObjectRef[], numReturns: number, timeoutMs: number | undefined): Promise<[ObjectRef[], ObjectRef[]]> {
    const byId = new Map(refs.map((r) => [r.id, r]));
    const all = [...byId.values()];
    if (!all.some(isWorkerOwned)) {
      const [ready, pending] = await this.#blocked(() => this.#head.remoteWait.callOne(all, numReturns, timeoutMs ?? null, this.#taskId));
      return [ready.map((id) => byId.get(id)!), pending.map((id) => byId.get(id)!)];
    }
    // Refs this process's owner has settled (a put, a nested task done) are ready at once, the head never asked.
    const want = Math.min(numReturns, all.length);
    const settled = all.filter((r) => settledHere(r));
    if (settled.length >= want) {
      const ready = settled.slice(0, Math.max(want, 0));
      return [ready, all.filter((r) => !ready.includes(r))];
    }
    const valueOf = (id: string): Promise<unknown> => {
      const ref = byId.get(id)!;
      if (isWorkerOwned(ref)) return ownedReader.kept(ref);
      return unwrap(this.#head.remoteWait.callOne([ref], 1, null, null)); // settles once the head's ref does
    };
    const [ready, pending] = await this.#waitHere(() => waitFor([...byId.keys()], valueOf, numReturns, timeoutMs));
    return [ready.map((id) => byId.get(id)!), pending.map((id) => byId.get(id)!)];
  }

  /** @internal `value`, made by `name` for ref `refId` (an actor call's result), as this worker sends it: itself, or its HeldValue if it stays here. */
  [kKept](refId: string, name: string, value: unknown): unknown {
    return keptValue(this.#holder, refId, name, value);
  }

  /** The value stays in this process, owned by its worker owner (worker-owner.ts): the head never hears of it. */
  put<T>(value: T): ObjectRef<T> {
    return this.#refs.put(value);
  }

  async createActor<C extends ActorClass>(
    Class: C,
    args: ConstructorParameters<C> = [] as unknown as ConstructorParameters<C>,
    options: ActorOptions = {},
  ): Promise<ActorHandle<InstanceType<C>>> {
    checkResources(options.resources ?? {}, `actor ${options.name ?? Class.name}`);
    const { url, exportName } = await locate(Class);
    const target = await unwrap(this.#head.remoteCreateActor.callOne(url, exportName, args as unknown[], options));
    return this[kHandleFor](target, Class);
  }

  killActor(name: string): Promise<void> {
    return unwrap(this.#head.remoteKillActor.callOne(name));
  }

  /** A handle whose calls go through the head, so their results are ObjectRefs anyone can get; with `Class` known, checked for arity. */
  [kHandleFor]<T>(target: ActorTarget, Class?: Function): ActorHandle<T> {
    return actorHandle<T>(
      (method, args) => {
        checkMethodArity(Class, method, args);
        const ref = this.#newRef();
        callThroughHead(this.#head, ref.id, target, method, args);
        return ref;
      },
      new ActorRef(target, this.#owner),
      (method, args, window) => {
        checkMethodArity(Class, method, args);
        const ref = this.#newRef() as ObjectRef<number>;
        callThroughHead(this.#head, ref.id, target, method, args, window);
        return this.#stream(ref);
      },
    );
  }

  async shutdown(): Promise<void> {
    throw new Error("shutdown() belongs to the driver that created the job context, not to a task or actor in it");
  }

  /** A ref made here: the message that makes it (a submit, an actor call) counts this process as its borrower. */
  #newRef(): ObjectRef {
    return this.#counted(new ObjectRef(currentProc().nextId(), this.#owner));
  }

  /** Counts `ref` as this process's until it is garbage; the head counted its borrow already. */
  #counted(ref: ObjectRef): ObjectRef {
    return madeHere(ref);
  }
}

/** Whether `ref` is owned by a worker's owner (a put, a nested task's: ../objects/object-ref.ts RefOwner `putBy`). */
function isWorkerOwned(ref: ObjectRef): boolean {
  const owner = ref[kOwner];
  return owner.head !== null && owner.putBy !== undefined;
}

/** Whether `ref` is owned in this process and its outcome is here (a value not held elsewhere, or an error). */
function settledHere(ref: ObjectRef): boolean {
  if (!isWorkerOwned(ref)) return false;
  const local = LOCAL_WORKER_REFS.get((ref[kOwner] as { id: string }).id);
  return local !== undefined && !local.pending(ref.id);
}

/** Whether a get of `value` (a ref, or an array) waits for a ref a worker's owner keeps: one not settled here, or held elsewhere. */
function mustWait(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(mustWait);
  if (!(value instanceof ObjectRef) || !isWorkerOwned(value)) return false;
  const local = LOCAL_WORKER_REFS.get((value[kOwner] as { id: string }).id);
  return local === undefined || local.waits(value.id);
}

/** The value of `ref`, asked of the head; a result held by a worker comes as its HeldValue, read here from its holder. */
function getFromHead(head: ActorMesh<HeadEndpoints>, ref: ObjectRef, taskId: string | null): Promise<unknown> {
  return unwrap(head.remoteGet.callOne(ref, taskId)).then((kept) => (kept instanceof HeldValue ? readFromHolder(head, kept, taskId) : kept));
}

/**
 * The value `held` stands for, read from its holder; if the holder is gone and the head runs its task again, the new
 * one. Task `taskId` lends its `slot` out while it waits for that (the task that makes the value may need the slot).
 */
export function readFromHolder(head: ActorMesh<HeadEndpoints>, held: HeldValue, taskId: string | null, slot: TaskSlot | null = null): Promise<unknown> {
  return readHeld(
    held,
    (lost) => unwrap(head.remoteLost.callOne(lost.refId, lost.buffer.owner)),
    async () => {
      slot?.block();
      try {
        return await getFromHead(head, new ObjectRef(held.refId, headOwner(head)), taskId);
      } finally {
        slot?.unblock();
      }
    },
  );
}

/** Failures of the head's calls carry the task's own error as the cause. */
function unwrap<T>(call: Promise<T>): Promise<T> {
  return call.catch((err: unknown) => {
    throw err instanceof ActorError ? err.cause : err;
  });
}
