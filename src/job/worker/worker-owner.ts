// The owner of the refs a worker's tasks and actors make (docs/design/object-store.md, "Who owns what"): the values
// they `put`, and the refs of the tasks they submit (nested tasks). One WorkerOwner actor per job in each worker process
// (or thread) that puts or submits, spawned on the first. It keeps the entries (../objects/owned-refs.ts) and answers
// for its refs from any process as a job's head answers for the head's (../objects/object-ref.ts RefHead): the value,
// or the HeldValue of a large one to read from its holder, waiting for a nested task's outcome, which the head sends
// here (remoteSettled); the borrows other processes announce and return; and the transit pins of messages that carry
// its refs. It keeps a nested task's lineage (nested-tasks.ts) and sends the head a cancel of one. A `get` in its own
// process answers with no message (../objects/ref-reader.ts), and the head never hears of puts.
import { messageContext, type MessageContext } from "../../runtime/face/procs.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { Actor, endpoint } from "../../mesh/actor.ts";
import { kMesh, type ActorMesh } from "../../mesh/actor-mesh.ts";
import { thisProc } from "../../mesh/host-mesh.ts";
import type { ActorTarget } from "../base/actor-target.ts";
import type { HeadEndpoints } from "../head-endpoints.ts";
import { OwnedRefs } from "../objects/owned-refs.ts";
import { kHeldBytes, ObjectRef, WORKER_OWNER_NAME, workerOwnerAt, type OwnerAddress, type RefHead, type RefOwner } from "../objects/object-ref.ts";
import { NestedTasks } from "./nested-tasks.ts";

/** What each WorkerOwner of this process keeps, by the token it was spawned with. */
const spawned = new Map<string, Owned>();

/** What a worker's owner keeps: its entries, and the lineage of its nested tasks. */
interface Owned {
  readonly entries: OwnedRefs;
  readonly nested: NestedTasks;
  readonly head: ActorMesh<HeadEndpoints>;
}

export class WorkerOwner extends Actor implements RefHead {
  readonly #token: string;
  #kept: Owned | undefined;

  constructor(token: string) {
    super();
    this.#token = token;
  }

  /** What it keeps: the spawner registers it by the token as it spawns, so it is there by the first message. */
  get #owned(): Owned {
    return (this.#kept ??= spawned.get(this.#token)!);
  }

  get #entries(): OwnedRefs {
    return this.#owned.entries;
  }

  cleanup(): void {
    (this.#kept ?? spawned.get(this.#token))?.entries.close();
    spawned.delete(this.#token);
  }

  /** What is kept for `ref` (once its task's outcome came): its value or the HeldValue to read it from; ObjectFreedError once it was freed. */
  @endpoint({ concurrent: true })
  remoteGet(ref: ObjectRef, _taskId: string | null): Promise<unknown> {
    return this.#entries.kept(ref.id);
  }

  /** The outcomes of nested tasks, from the head: `flat` is `id, ok, outcome, retriesLeft, …` (../head/owner-forwards.ts). */
  @endpoint({ concurrent: true })
  remoteSettled(flat: unknown[]): void {
    const { entries, nested } = this.#owned;
    for (let i = 0; i < flat.length; i += 4) {
      const id = flat[i] as string;
      nested.settled(id, flat[i + 3] as number);
      entries.settle(id, flat[i + 1] === 1, flat[i + 2]);
    }
  }

  /** A reader found the holder of ref `id`'s value gone: a nested task's runs again if it may (nested-tasks.ts); a put's is lost. */
  @endpoint({ concurrent: true })
  async remoteLost(id: string, holder: string): Promise<boolean> {
    if (this.#entries.pending(id)) return true; // made anew already
    const held = await this.#entries.kept(id).catch(() => undefined);
    return this.#owned.nested.lost(id, holder, held);
  }

  /** Worker `worker` died (the head says so): the nested tasks' values it held are made anew now if they may be. */
  @endpoint({ concurrent: true })
  remoteHolderDied(worker: number): void {
    const { entries, nested } = this.#owned;
    for (const [id, held] of entries.heldBy(worker)) nested.lost(id, held.buffer.owner, held);
  }

  @endpoint({ concurrent: true })
  remoteStreamNext(id: string, _index: number, _taskId: string | null): Promise<string | null> {
    return Promise.reject(new Error(`ObjectRef(${id}) is a value a worker made (a put, or a task's result), not a stream; read it with get`));
  }

  /** A nested task's cancel goes to the head, which runs it (its outcome comes here as a TaskCancelledError); a put has nothing to cancel. */
  @endpoint({ concurrent: true })
  remoteCancel(id: string, recursive: boolean, force = false): Promise<void> | void {
    if (this.#entries.pending(id)) return this.#owned.head.remoteCancel.callOne(id, recursive, force).then(() => {});
  }

  /** No actor handle names a worker owner, so no call comes here; one that did has no head to run it and is dropped. */
  @endpoint({ concurrent: true })
  remoteCallActor(_id: string, _target: ActorTarget, _method: string, _args: unknown[], _stream?: number | false): void {}

  @endpoint({ concurrent: true })
  remoteBorrow(ids: string[], tokens: string[] = []): void {
    this.#entries.counts.borrow(ids, tokens);
  }

  @endpoint({ concurrent: true })
  remoteReturn(ids: string[]): void {
    this.#entries.counts.returned(ids);
  }

  /** Messages carrying refs of this owner, marked `tokens`, were decoded by a process that borrows their values already. */
  @endpoint({ concurrent: true })
  remoteReceived(tokens: string[]): void {
    this.#entries.counts.received(tokens);
  }

  /** A borrower sent refs of this owner on: `pairs` is `id, token, …`, each kept until its receiver names the token. */
  @endpoint({ concurrent: true })
  remotePin(pairs: string[]): void {
    for (let i = 0; i < pairs.length; i += 2) this.#entries.counts.pin(pairs[i], pairs[i + 1]);
  }
}

/**
 * The owner of one job's refs made in this worker, spawned on the first put or nested submit (most workers make
 * neither): `head`: the job's; `worker` names this worker in errors; `holder`: its index if it holds large values
 * (processes, mesh), else -1 (threads keep them as they are); `context`: the Executor's, which owns the WorkerOwner, so
 * it stops with the job's workers.
 */
export class WorkerRefs {
  #owner: RefOwner | null = null;
  #owned: Owned | null = null;

  constructor(
    private readonly head: ActorMesh<HeadEndpoints>,
    readonly worker: number,
    readonly holder: number,
    private readonly context: MessageContext | undefined,
  ) {}

  /** A ref to `value`, kept here. */
  put<T>(value: T): ObjectRef<T> {
    const ref = new ObjectRef<T>(currentProc().nextId(), this.owner);
    const held = this.#owned!.entries.put(ref, value);
    if (held > 0) ref[kHeldBytes] = held; // so the head sends its readers here (../tasks/locality.ts)
    return ref;
  }

  /** The owner of refs made here. */
  get owner(): RefOwner {
    if (!this.#owner) this.#spawn();
    return this.#owner!;
  }

  /** Its entries (nested tasks' refs are `expect`ed there). */
  get entries(): OwnedRefs {
    if (!this.#owned) this.#spawn();
    return this.#owned!.entries;
  }

  /** The lineage of its nested tasks, which submits them. */
  get nested(): NestedTasks {
    if (!this.#owned) this.#spawn();
    return this.#owned!.nested;
  }

  #spawn(): void {
    const token = currentProc().nextId();
    const spawn = () => thisProc().spawn(WORKER_OWNER_NAME, WorkerOwner, token) as unknown as ActorMesh<RefHead>;
    const mesh = this.context ? messageContext.run(this.context, spawn) : spawn();
    const { id, addrs } = mesh[kMesh];
    const entries = new OwnedRefs(id, this.holder);
    const address: OwnerAddress = [addrs[0], id, this.worker];
    this.#owned = { entries, nested: new NestedTasks(this.head, address, entries), head: this.head };
    spawned.set(token, this.#owned);
    this.#owner = workerOwnerAt(addrs[0], id, this.worker, mesh);
  }
}
