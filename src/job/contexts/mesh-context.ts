// The driver's JobContext for the backends built on the mesh runtime:
// `processes` (worker processes), `threads` (worker threads) and `mesh` (any
// ProcMesh). The driver talks to its JobHead directly; workers message its HeadActor.
import type { ProcMesh } from "../../mesh/proc-mesh.ts";
import { checkMethodArity } from "../../runtime/face/actors.ts";
import { actorHandle, type ActorHandle } from "../actors/actor-handle.ts";
import { ActorRef, kHandleFor, type ActorTarget } from "../actors/actor-ref.ts";
import { NEVER_ABORTED } from "../base/ambient.ts";
import type { ActorClass } from "../actors/actor-handle.ts";
import type { CancelOptions, JobContext, JobKind, StreamingFunction, TaskFunction } from "../job-context.ts";
import { keptPut } from "../objects/kept-values.ts";
import { JobContextBase, kReturnRef, kSubmit, kSubmitStream, kWaitFor, kCheckOpen } from "../job-context-base.ts";
import { startHead } from "../head/head-actor.ts";
import type { JobHead } from "../head/job-head.ts";
import { headOwner, kOwner, ObjectRef, type RefOwner } from "../objects/object-ref.ts";
import { cancelTarget, ObjectRefStream } from "../objects/object-ref-stream.ts";
import { ActorError } from "../../mesh/errors.ts";
import { checkCancelOptions, checkResources, type ActorOptions, type Resources, type TaskOptions } from "../base/options.ts";
import { currentProc } from "../../runtime/face/procs.ts";

export class MeshJobContext extends JobContextBase implements JobContext {
  readonly #ready: Promise<JobHead>;
  /** Its head's HeadActor, which keeps the job's refs: owner of every ref and handle made here. */
  readonly #owner: RefOwner;
  /** The head once #ready resolved: tasks go to it at once, not through a promise each. */
  #head: JobHead | null = null;
  #shutdown = false;

  /** The driver is no task: nothing cancels it. */
  get signal(): AbortSignal {
    return NEVER_ABORTED;
  }

  constructor(
    readonly kind: JobKind,
    procs: () => ProcMesh,
    capacity: Resources,
    namespace: string | null,
  ) {
    super();
    const { endpoints, ready } = startHead(kind, procs, capacity, namespace);
    this.#ready = ready;
    this.#owner = headOwner(endpoints);
    // The first reaction to #ready: calls made before it still go through #ready, in their order, ahead of any made after.
    this.#ready.then(
      (head) => (this.#head = head),
      () => {},
    ); // a failure is reported by the first call that needs the head
  }

  protected [kSubmit](fn: TaskFunction, args: unknown[], options: TaskOptions): ObjectRef {
    const ref = new ObjectRef(currentProc().nextId(), this.#owner);
    if (this.#head) this.#submit(this.#head, ref, fn, args, options);
    else this.#submitWhenReady(ref, fn, args, options);
    return ref;
  }

  // Methods, not closures: with the head ready, a task allocates no closure or context to reach it.
  #submit(head: JobHead, ref: ObjectRef, fn: TaskFunction, args: unknown[], options: TaskOptions): void {
    head.store.track(ref);
    head.submit(ref.id, fn, args, options);
  }

  #submitWhenReady(ref: ObjectRef, fn: TaskFunction, args: unknown[], options: TaskOptions): void {
    this.#ready.then(
      (head) => this.#submit(head, ref, fn, args, options),
      () => {},
    );
  }

  /** A return's ref is released on its own: the head's store tracks it. */
  protected override [kReturnRef](task: ObjectRef, id: string): ObjectRef {
    const ref = super[kReturnRef](task, id);
    const track = (head: JobHead) => head.store.track(ref);
    if (this.#head) track(this.#head);
    else this.#ready.then(track, () => {});
    return ref;
  }

  protected [kSubmitStream](fn: StreamingFunction, args: unknown[], window: number, options: TaskOptions): ObjectRefStream<unknown> {
    const ref = new ObjectRef<number>(currentProc().nextId(), this.#owner);
    const submit = (head: JobHead) => (head.store.track(ref), head.submitStream(ref.id, fn, args, null, window, options));
    if (this.#head) submit(this.#head);
    else this.#ready.then(submit, () => {});
    return this.#stream(ref);
  }

  /** The reading side of stream `ref`: its head is in this process, and keeps its items until they are handed out. */
  #stream<T>(ref: ObjectRef<number>): ObjectRefStream<T> {
    return new ObjectRefStream<T>(
      ref,
      {
        next: async (index) => {
          const head = await this.#ready;
          const id = await head.streamNext(ref.id, index, null);
          return id === null ? null : head.store.track(new ObjectRef(id, this.#owner));
        },
        cancel: () => this.cancel(ref),
      },
      this.#dropped(ref.id),
    );
  }

  /** What stream `id` dropped unread does: its head cancels it (the closure holds the id, not the ref, which may then be collected). */
  #dropped(id: string): () => void {
    return () => void this.#ready.then((head) => head.cancel(id, true, false)).catch(() => {}); // (a job shut down has nothing left to cancel)
  }

  async cancel(target: ObjectRef | ObjectRefStream<unknown>, options: CancelOptions = {}): Promise<void> {
    const ref = cancelTarget(target);
    checkCancelOptions(options);
    const recursive = options.recursive ?? true;
    const force = options.force ?? false;
    const owner = ref[kOwner];
    if (owner === this.#owner) return (await this.#ready).cancel(ref.id, recursive, force);
    if (owner.head === null) throw new Error(`${ref} belongs to a sync job context; cancel it with that context`);
    await owner.head.remoteCancel.callOne(ref.id, recursive, force).catch((err: unknown) => {
      throw err instanceof ActorError ? err.cause : err;
    }); // another job's ref: its head cancels it
  }

  get(value: unknown): Promise<never> {
    if (this.#head) return this.#head.refs.get(value) as Promise<never>;
    return this.#ready.then((head) => head.refs.get(value)) as Promise<never>;
  }

  protected async [kWaitFor](refs: readonly ObjectRef[], numReturns: number, timeoutMs: number | undefined): Promise<[ObjectRef[], ObjectRef[]]> {
    return (await this.#ready).refs.wait(refs, numReturns, timeoutMs);
  }

  put<T>(value: T): ObjectRef<T> {
    this[kCheckOpen]();
    const ref = new ObjectRef<T>(currentProc().nextId(), this.#owner);
    const kept = this.kind === "threads" ? value : keptPut(ref.id, value); // now, not once the head is up: put's snapshot
    const store = (head: JobHead) => (head.store.track(ref), head.store.entry(ref.id).resolve(kept));
    if (this.#head) store(this.#head);
    else this.#ready.then(store, () => {});
    return ref;
  }

  async createActor<C extends ActorClass>(
    Class: C,
    args: ConstructorParameters<C> = [] as unknown as ConstructorParameters<C>,
    options: ActorOptions = {},
  ): Promise<ActorHandle<InstanceType<C>>> {
    this[kCheckOpen]();
    checkResources(options.resources ?? {}, `actor ${options.name ?? Class.name}`);
    const head = await this.#ready;
    const target = await head.createActor(Class, args as unknown[], options);
    return this[kHandleFor](target, Class);
  }

  async killActor(name: string): Promise<void> {
    this[kCheckOpen]();
    await (await this.#ready).killActor(name);
  }

  /** With `Class` known, calls are checked for arity as they are made. */
  [kHandleFor]<T>(target: ActorTarget, Class?: Function): ActorHandle<T> {
    return actorHandle<T>(
      (method, args) => {
        checkMethodArity(Class, method, args);
        const ref = new ObjectRef(currentProc().nextId(), this.#owner);
        this.#ready.then((head) => (head.store.track(ref), head.callActor(ref.id, target, method, args)));
        return ref;
      },
      new ActorRef(target, this.#owner),
      (method, args, window) => {
        checkMethodArity(Class, method, args);
        const ref = new ObjectRef<number>(currentProc().nextId(), this.#owner);
        this.#ready.then((head) => (head.store.track(ref), head.callActorStream(ref.id, target, method, args, window)));
        return this.#stream(ref);
      },
    );
  }

  async shutdown(): Promise<void> {
    if (this.#shutdown) return;
    this.#shutdown = true;
    const head = await this.#ready.catch(() => null);
    await head?.shutdown();
  }

  /** @internal Values held by the head, for tests of their release. */
  async objectCount(): Promise<number> {
    return (await this.#ready).store.size;
  }

  protected override [kCheckOpen](): void {
    if (this.#shutdown) throw new Error(`this ${this.kind} job context was shut down; create another with createJobContext()`);
  }
}
