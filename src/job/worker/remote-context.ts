// The JobContext of tasks and actors running in a worker: every operation is
// a message to the job's head in the driver, but `put`, whose value this worker's
// put owner keeps (put-owner.ts), and `get` of such a value. Ids are made here, so
// `run` and `put` return at once and their messages need no reply.
import { locate } from "../../runtime/face/code.ts";
import type { ActorMesh } from "../../mesh/actor-mesh.ts";
import { ActorError } from "../../mesh/errors.ts";
import { checkMethodArity, functionLabel } from "../../runtime/face/actors.ts";
import { actorHandle, type ActorHandle } from "../actors/actor-handle.ts";
import { ActorRef, callThroughHead, kHandleFor, type ActorTarget } from "../actors/actor-ref.ts";
import { NEVER_ABORTED } from "../base/ambient.ts";
import type { ActorClass } from "../actors/actor-handle.ts";
import type { CancelOptions, JobContext, JobKind, StreamingFunction, TaskFunction } from "../job-context.ts";
import { JobContextBase, kSubmit, kSubmitStream, kWaitFor } from "../job-context-base.ts";
import type { HeadEndpoints } from "../head-endpoints.ts";
import { headOwner, kOwner, madeHere, ObjectRef, type RefOwner } from "../objects/object-ref.ts";
import { ObjectStore } from "../objects/object-store.ts";
import { LOCAL_PUTS } from "../objects/owned-puts.ts";
import { RefReader } from "../objects/ref-reader.ts";
import type { WorkerPuts } from "./put-owner.ts";
import { cancelTarget, ObjectRefStream } from "../objects/object-ref-stream.ts";
import { checkCancelOptions, checkResources, returnsOf, type ActorOptions, type TaskOptions } from "../base/options.ts";
import { returnIds } from "../objects/task-returns.ts";
import { nameUnsendableArgument } from "../objects/task-args.ts";
import { HeldValue, readHeld } from "../objects/held-value.ts";
import { keptValue } from "../objects/kept-values.ts";
import { kKept } from "../actors/actor-call-endpoint.ts";
import { currentProc } from "../../runtime/face/procs.ts";

/** Reads refs of worker's puts (../objects/ref-reader.ts): from this process's put owner, or asked of another's. */
const putReader = new RefReader(new ObjectStore());

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
  /** The head owns the refs and handles made here. */
  readonly #owner: RefOwner;
  readonly #taskId: string | null;
  readonly #slot: TaskSlot | null;
  readonly #controls: TaskControls | null;
  /** This worker's index, if a large actor-call result stays here (../objects/held-value.ts); -1: every value goes to the head. */
  readonly #holder: number;
  /** The owner of this worker's puts. */
  readonly #puts: WorkerPuts;

  /**
   * `taskId`: the task this context runs, whose resources (and `slot`) are given back while it waits; `controls`: its
   * Executor's; `puts`: this worker's put owner, which knows whether it keeps large values (its holder index, else -1).
   */
  constructor(
    head: ActorMesh<HeadEndpoints>,
    readonly kind: JobKind,
    taskId: string | null,
    slot: TaskSlot | null,
    controls: TaskControls | null,
    puts: WorkerPuts,
  ) {
    super();
    this.#head = head;
    this.#owner = headOwner(head);
    this.#taskId = taskId;
    this.#slot = slot;
    this.#controls = controls;
    this.#puts = puts;
    this.#holder = puts.holder;
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

  protected [kSubmit](fn: TaskFunction, args: unknown[], options: TaskOptions): ObjectRef {
    const ref = this.#newRef();
    // A task that never reaches the head fails its ref, or, with several returns, each of theirs (its own is never read).
    const n = returnsOf(options);
    const fail = (err: unknown) => {
      const error = nameUnsendableArgument(err, functionLabel(fn), args) as Error;
      for (const id of n === 0 ? [ref.id] : returnIds(ref.id, n)) this.#head.remoteFail.broadcast(id, error);
    };
    locate(fn).then(({ url, exportName }) => {
      try {
        this.#head.remoteSubmit.broadcast(ref.id, url, exportName, args, options, this.#taskId);
      } catch (err) {
        fail(err); // an argument the codec cannot send: the ref rejects with it
      }
    }, fail);
    return ref;
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
    if (value instanceof ObjectRef) {
      if (!isPut(value)) return this.#blocked(() => getFromHead(this.#head, value, this.#taskId)) as Promise<never>;
      // A worker's put: this process's answers here, with no message; another's is asked of its owner, not the head.
      if (LOCAL_PUTS.has((value[kOwner] as { id: string }).id)) return putReader.value(value) as Promise<never>;
      return this.#blocked(() => putReader.value(value)) as Promise<never>;
    }
    if (Array.isArray(value)) return Promise.all(value.map((v) => this.get(v))) as Promise<never>;
    return Promise.resolve(value as never);
  }

  protected async [kWaitFor](refs: readonly ObjectRef[], numReturns: number, timeoutMs: number | undefined): Promise<[ObjectRef[], ObjectRef[]]> {
    const byId = new Map(refs.map((r) => [r.id, r]));
    // A worker's put is made when its ref is (a dead owner's fails its get): ready at once, the head never asked.
    const puts = [...byId.values()].filter(isPut);
    const want = Math.min(numReturns, byId.size);
    if (puts.length > 0 && want > 0) {
      const others = [...byId.values()].filter((r) => !isPut(r));
      if (puts.length >= want || others.length === 0) return [puts.slice(0, want), [...puts.slice(want), ...others]];
      const [ready, pending] = await this[kWaitFor](others, want - puts.length, timeoutMs);
      return [[...puts, ...ready], pending];
    }
    const [ready, pending] = await this.#blocked(() => this.#head.remoteWait.callOne([...byId.values()], numReturns, timeoutMs ?? null, this.#taskId));
    return [ready.map((id) => byId.get(id)!), pending.map((id) => byId.get(id)!)];
  }

  /** @internal `value`, made by `name` for ref `refId` (an actor call's result), as this worker sends it: itself, or its HeldValue if it stays here. */
  [kKept](refId: string, name: string, value: unknown): unknown {
    return keptValue(this.#holder, refId, name, value);
  }

  /** The value stays in this process, owned by its put owner (put-owner.ts): the head never hears of it. */
  put<T>(value: T): ObjectRef<T> {
    return this.#puts.put(value);
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

/** Whether `ref` is a worker's put (../objects/object-ref.ts RefOwner `putBy`). */
function isPut(ref: ObjectRef): boolean {
  const owner = ref[kOwner];
  return owner.head !== null && owner.putBy !== undefined;
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
