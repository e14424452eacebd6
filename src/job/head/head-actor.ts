// The HeadActor is the job head as tasks and actors in workers see it: an
// actor in the driver whose endpoints are a thin layer over the JobHead. The
// driver never messages it; it hands its mesh to the job's Executors only.
import type { PortRef } from "../../runtime/face/actors.ts";
import { currentProc, messageContext } from "../../runtime/face/procs.ts";
import { Actor, endpoint } from "../../mesh/actor.ts";
import type { ActorMesh } from "../../mesh/actor-mesh.ts";
import type { MeshFailure } from "../../mesh/errors.ts";
import { thisProc } from "../../mesh/host-mesh.ts";
import type { ProcMesh } from "../../mesh/proc-mesh.ts";
import type { ActorTarget } from "../base/actor-target.ts";
import type { HeadEndpoints } from "../head-endpoints.ts";
import type { JobKind } from "../job-context.ts";
import { JobHead } from "./job-head.ts";
import type { ObjectRef, OwnerAddress } from "../objects/object-ref.ts";
import type { ActorOptions, Resources, TaskOptions } from "../base/options.ts";

/** Heads a HeadActor of this process constructed and startHead has not taken yet, by token. */
const constructed = new Map<string, JobHead>();

export class HeadActor extends Actor implements HeadEndpoints {
  readonly #head: JobHead;

  constructor(token: string) {
    super();
    // Work the driver asks the head for directly runs as this actor, so what the head spawns is owned here.
    this.#head = new JobHead(messageContext.getStore());
    constructed.set(token, this.#head);
  }

  supervise(failure: MeshFailure): boolean {
    this.#head.meshFailed(failure);
    return true;
  }

  // The endpoints that make a ref (submits, actor calls, a stream's next item) count the caller, which holds
  // the ref, as a borrower of its value: it gives the borrow back when it drops the ref (../objects/borrowed-refs.ts).

  /**
   * `parent`: the task that submits it, if any (a recursive cancel of it cancels this one too). `owner`: the worker's
   * owner that keeps its ref (../worker/worker-owner.ts), which the head sends its outcome; none: the head keeps it.
   * `lostWith`: the worker whose loss of its value the owner makes it anew for.
   */
  @endpoint({ concurrent: true })
  remoteSubmit(
    id: string,
    url: string,
    exportName: string,
    args: unknown[],
    options: TaskOptions,
    parent: string | null = null,
    owner: OwnerAddress | null = null,
    lostWith: number | null = null,
  ): void {
    if (owner === null) this.#head.store.counts.borrow([id]);
    this.#head.submit(id, { url, exportName }, args, options, parent, owner, lostWith);
  }

  /** Nested tasks whose refs `owner` keeps, in the order they were made: `flat` is `id, url, exportName, args, options, parent, …`. */
  @endpoint({ concurrent: true })
  remoteSubmitBatch(flat: unknown[], owner: OwnerAddress): void {
    for (let i = 0; i < flat.length; i += 6) {
      const [id, url, exportName, args, options, parent] = flat.slice(i, i + 6) as [string, string, string, unknown[], TaskOptions, string | null];
      this.#head.submit(id, { url, exportName }, args, options, parent, owner);
    }
  }

  /** Task `taskId` waits in its worker for values its worker's owner keeps (`blocked`), or waits no more: its resources are lent out meanwhile. */
  @endpoint({ concurrent: true })
  remoteBlocked(taskId: string, blocked: boolean): void {
    this.#head.blocked(taskId, blocked);
  }

  @endpoint({ concurrent: true })
  remoteSubmitStream(id: string, url: string, exportName: string, args: unknown[], parent: string | null, window = Infinity, options: TaskOptions = {}): void {
    this.#head.store.counts.borrow([id]);
    this.#head.submitStream(id, { url, exportName }, args, parent, window, options);
  }

  /** The ref id of item `index` of stream `id`, or null after its last; `taskId`: the reading task, which lends its resources out meanwhile. */
  @endpoint({ concurrent: true })
  async remoteStreamNext(id: string, index: number, taskId: string | null): Promise<string | null> {
    const item = await this.#head.streamNext(id, index, taskId);
    if (item !== null) this.#head.store.counts.borrow([item]);
    return item;
  }

  /** The calling process holds refs to each of `ids`: their values are kept until it returns them. */
  @endpoint({ concurrent: true })
  remoteBorrow(ids: string[]): void {
    this.#head.store.counts.borrow(ids);
  }

  /** The calling process dropped its refs to each of `ids`: a value nobody else keeps is freed. */
  @endpoint({ concurrent: true })
  remoteReturn(ids: string[]): void {
    this.#head.store.counts.returned(ids);
  }

  @endpoint({ concurrent: true })
  remoteCancel(id: string, recursive: boolean, force = false): void {
    this.#head.cancel(id, recursive, force);
  }

  /** Worker `worker`'s tasks that got a slot (../worker/start-reports.ts). */
  @endpoint({ concurrent: true })
  remoteStarted(worker: number, started: string[]): void {
    this.#head.started(worker, started);
  }

  /** Worker `worker`'s Executor takes small batches of tasks at `port` (../routes/port-lane.ts). */
  @endpoint({ concurrent: true })
  remoteLane(worker: number, port: PortRef): void {
    this.#head.laneOpened(worker, port);
  }

  @endpoint({ concurrent: true })
  remoteFail(id: string, error: Error): void {
    this.#head.store.entry(id).reject(error);
  }

  /** The value of `ref` (this job's, or another's: the head asks its owner); answered to other jobs too (taskId null). */
  @endpoint({ concurrent: true })
  remoteGet(ref: ObjectRef, taskId: string | null): Promise<unknown> {
    return this.#head.get(ref, taskId);
  }

  /** A reader found the holder of ref `id`'s value gone: whether its task runs again (lineage). */
  @endpoint({ concurrent: true })
  remoteLost(id: string, holder: string): boolean {
    return this.#head.holderLost(id, holder);
  }

  @endpoint({ concurrent: true })
  async remoteWait(refs: ObjectRef[], numReturns: number, timeoutMs: number | null, taskId: string | null): Promise<[string[], string[]]> {
    const [ready, pending] = await this.#head.wait(refs, numReturns, timeoutMs ?? undefined, taskId);
    return [ready.map((r) => r.id), pending.map((r) => r.id)];
  }

  @endpoint({ concurrent: true })
  remoteCreateActor(url: string, exportName: string, args: unknown[], options: ActorOptions): Promise<ActorTarget> {
    return this.#head.createActor({ url, exportName }, args, options);
  }

  /** Also how handles called where no job context runs reach their actor (../actors/actor-ref.ts): from any process. */
  @endpoint({ concurrent: true })
  remoteCallActor(id: string, target: ActorTarget, method: string, args: unknown[], stream: number | false = false): void {
    this.#head.store.counts.borrow([id]);
    if (stream !== false) this.#head.callActorStream(id, target, method, args, stream);
    else this.#head.callActor(id, target, method, args);
  }

  @endpoint({ concurrent: true })
  remoteKillActor(name: string): Promise<void> {
    return this.#head.killActor(name);
  }
}

/**
 * Spawns a job's head in this process: its HeadActor at once, and `ready`,
 * which resolves with the head once an Executor runs in every process of `procs()`.
 */
export function startHead(
  kind: JobKind,
  procs: () => ProcMesh,
  capacity: Resources,
  namespace: string | null,
): { endpoints: ActorMesh<HeadActor>; ready: Promise<JobHead> } {
  const token = currentProc().nextId();
  const endpoints = thisProc().spawn("fray-job-head", HeadActor, token);
  const ready = endpoints.initialized.then(async () => {
    const head = constructed.get(token)!;
    constructed.delete(token);
    try {
      await head.setUp({ kind, procs: procs(), capacity, namespace }, endpoints);
    } catch (err) {
      // Its workers stop with it: a job whose Executors failed to start holds no thread or process open.
      await head.shutdown().catch(() => {});
      throw err;
    }
    return head;
  });
  return { endpoints, ready };
}
