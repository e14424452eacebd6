// The owner of the values a worker's tasks and actors `put` (docs/design/object-store.md, "Who owns what"): one
// PutOwner actor per job in each worker process (or thread) that puts, spawned on its first put. It keeps the values
// (../objects/owned-puts.ts) and answers for its refs from any process as a job's head answers for the head's
// (../objects/object-ref.ts RefHead): the value, or the HeldValue of a large one to read from this process; the
// borrows other processes announce and return; and the transit pins of messages that carry its refs. A `get` in its
// own process answers with no message (../objects/ref-reader.ts), and the head never hears of these values.
import { messageContext, type MessageContext } from "../../runtime/face/procs.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { Actor, endpoint } from "../../mesh/actor.ts";
import { kMesh, type ActorMesh } from "../../mesh/actor-mesh.ts";
import { thisProc } from "../../mesh/host-mesh.ts";
import type { ActorTarget } from "../base/actor-target.ts";
import { OwnedPuts } from "../objects/owned-puts.ts";
import { kHeldBytes, ObjectRef, PUT_OWNER_NAME, putOwnerAt, type RefHead, type RefOwner } from "../objects/object-ref.ts";

/** The values of each PutOwner of this process, by the token it was spawned with. */
const spawned = new Map<string, OwnedPuts>();

export class PutOwner extends Actor implements RefHead {
  readonly #token: string;
  #kept: OwnedPuts | undefined;

  constructor(token: string) {
    super();
    this.#token = token;
  }

  /** Its values: the spawner registers them by the token as it spawns, so they are there by the first message. */
  get #puts(): OwnedPuts {
    return (this.#kept ??= spawned.get(this.#token)!);
  }

  cleanup(): void {
    this.#puts?.close();
    spawned.delete(this.#token);
  }

  /** The value put for `ref`, or the HeldValue to read it from here; ObjectFreedError once it was freed. */
  @endpoint({ concurrent: true })
  remoteGet(ref: ObjectRef, _taskId: string | null): Promise<unknown> {
    return this.#puts.kept(ref.id);
  }

  /** A put has no task to make it again: a holder lost is a value lost. */
  @endpoint({ concurrent: true })
  remoteLost(_id: string, _holder: string): boolean {
    return false;
  }

  @endpoint({ concurrent: true })
  remoteStreamNext(id: string, _index: number, _taskId: string | null): Promise<string | null> {
    return Promise.reject(new Error(`ObjectRef(${id}) was made by put in a worker: it is a value, not a stream; read it with get`));
  }

  /** A put has nothing to cancel. */
  @endpoint({ concurrent: true })
  remoteCancel(_id: string, _recursive: boolean, _force?: boolean): void {}

  /** No actor handle names a put owner, so no call comes here; one that did has no head to run it and is dropped. */
  @endpoint({ concurrent: true })
  remoteCallActor(_id: string, _target: ActorTarget, _method: string, _args: unknown[], _stream?: number | false): void {}

  @endpoint({ concurrent: true })
  remoteBorrow(ids: string[], tokens: string[] = []): void {
    this.#puts.counts.borrow(ids, tokens);
  }

  @endpoint({ concurrent: true })
  remoteReturn(ids: string[]): void {
    this.#puts.counts.returned(ids);
  }

  /** Messages carrying refs of this owner, marked `tokens`, were decoded by a process that borrows their values already. */
  @endpoint({ concurrent: true })
  remoteReceived(tokens: string[]): void {
    this.#puts.counts.received(tokens);
  }

  /** A borrower sent refs of this owner on: `pairs` is `id, token, …`, each kept until its receiver names the token. */
  @endpoint({ concurrent: true })
  remotePin(pairs: string[]): void {
    for (let i = 0; i < pairs.length; i += 2) this.#puts.counts.pin(pairs[i], pairs[i + 1]);
  }
}

/**
 * The put owner of one job in this worker, spawned on the first put (most workers never put): `worker` names this
 * worker in errors; `holder`: its index if it holds large values (processes, mesh), else -1 (threads keep them as they
 * are); `context`: the Executor's, which owns the PutOwner, so it stops with the job's workers.
 */
export class WorkerPuts {
  #owner: RefOwner | null = null;
  #puts: OwnedPuts | null = null;

  constructor(
    readonly worker: number,
    readonly holder: number,
    private readonly context: MessageContext | undefined,
  ) {}

  /** A ref to `value`, kept here. */
  put<T>(value: T): ObjectRef<T> {
    if (!this.#owner) this.#spawn();
    const ref = new ObjectRef<T>(currentProc().nextId(), this.#owner!);
    const held = this.#puts!.put(ref, value);
    if (held > 0) ref[kHeldBytes] = held; // so the head sends its readers here (../tasks/locality.ts)
    return ref;
  }

  #spawn(): void {
    const token = currentProc().nextId();
    const spawn = () => thisProc().spawn(PUT_OWNER_NAME, PutOwner, token) as unknown as ActorMesh<RefHead>;
    const mesh = this.context ? messageContext.run(this.context, spawn) : spawn();
    const { id, addrs } = mesh[kMesh];
    this.#puts = new OwnedPuts(id, this.holder);
    spawned.set(token, this.#puts);
    this.#owner = putOwnerAt(addrs[0], id, this.worker, mesh);
  }
}
