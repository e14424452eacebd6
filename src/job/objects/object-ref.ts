// ObjectRef: a handle to a value that a task will produce (or `put` stored).
// The value is kept by its owner: the head of the job that made the ref, in
// that job's driver — or, for a `put` in a worker or a task submitted there, that
// worker's owner (../worker/worker-owner.ts). A ref names its owner, so it can be passed anywhere — to
// tasks and actors of its job, back to the driver, to another job through a
// named actor — and whoever resolves it asks the owner (ref-reader.ts). Every ref
// decoded or made is counted, so the owner frees a value once no process holds a
// ref to it (ref-counts.ts, borrowed-refs.ts); a worker owner's refs also travel
// pinned (toWire below). A sync job keeps its values in its own process, so its refs cannot be sent.
import { SerializationError } from "../../wire/errors.ts";
import { registerHandleType } from "../../wire/codec.ts";
import { kMesh, type ActorMesh } from "../../mesh/actor-mesh.ts";
import { actorMeshAt } from "../../mesh/mesh-at.ts";
import type { ActorTarget } from "../base/actor-target.ts";
import type { ObjectStore } from "./object-store.ts";
import { LOCAL_OWNERS } from "./ref-counts.ts";
import { borrowed } from "./borrowed-refs.ts";
import { pinSent, pinsMade } from "./transit-pins.ts";
import { currentProc } from "../../runtime/face/procs.ts";

/**
 * The endpoints of a job's head that whoever holds one of its refs, streams or actor handles calls, from any
 * process: the part of the head's face (../head-endpoints.ts) a ref needs, so refs need not know the head.
 */
export interface RefHead {
  /**
   * The value of `ref` (or the HeldValue of a result held by a worker, to read from there); `taskId`: the asking task,
   * which lends its resources out meanwhile (null: not one of the job's tasks).
   */
  remoteGet(ref: ObjectRef, taskId: string | null): Promise<unknown>;
  /**
   * A reader found the holder of ref `id`'s value, the process at `holder`, gone: whether its task runs again (lineage)
   * or a value made anew is held elsewhere already, so a new read of the ref waits for it or reads it.
   */
  remoteLost(id: string, holder: string): boolean | Promise<boolean>;
  /** The ref id of item `index` of stream `id`, or null after its last. */
  remoteStreamNext(id: string, index: number, taskId: string | null): Promise<string | null>;
  /** `force`: replace the worker of a task that is still running after FRAY_CANCEL_GRACE_MS. */
  remoteCancel(id: string, recursive: boolean, force?: boolean): void;
  /** Calls `method` of `target` for ref `id` (`stream`: as a stream), keeping the result with the head. */
  /** `stream`: a streaming call's window (how many items it may yield ahead of its reader; Infinity: no limit), false for a plain call. */
  remoteCallActor(id: string, target: ActorTarget, method: string, args: unknown[], stream?: number | false): void;
  /**
   * The calling process holds refs to each of `ids` (once per borrow): their values are kept until it returns them
   * (borrowed-refs.ts); `tokens`: the transit pins of the messages it decoded them from (a worker owner's refs only).
   */
  remoteBorrow(ids: string[], tokens?: string[]): void;
  /** The calling process dropped its refs to each of `ids` (once per borrow it returns). */
  remoteReturn(ids: string[]): void;
}

/**
 * Where a ref's value is kept: with a job's head, which answers for it from any process; with the owner of the worker
 * whose task or actor put it or submitted its task (`putBy`: that worker's index, -1 if it has none); or in a sync
 * job's store in this process.
 */
export type RefOwner =
  { readonly head: ActorMesh<RefHead>; readonly id: string; readonly putBy?: number } | { readonly head: null; readonly store: ObjectStore };

/** Where a worker's owner is (../worker/worker-owner.ts): its process's address, its actor's mesh id, its worker's index. */
export type OwnerAddress = readonly [addr: string, id: string, worker: number];

/** The mesh name and class of a worker's owner (../worker/worker-owner.ts), which refs of its puts and nested tasks name. */
export const WORKER_OWNER_NAME = "fray-worker-owner";
export const WORKER_OWNER_CLASS = "WorkerOwner";

/** An argument may be given as a value or as a ref to one; refs are resolved before the call. */
export type Refs<A extends readonly unknown[]> = { [K in keyof A]: A[K] | ObjectRef<A[K]> };
export type Resolved<T> = T extends ObjectRef<infer V> ? V : T;

/** The owner behind a ref, under a symbol so it is not part of the ObjectRef API. */
export const kOwner = Symbol("fray.refOwner");

/** How many bytes a worker's put holds as bytes (not kept as it is): where tasks reading it are sent (../tasks/locality.ts). */
export const kHeldBytes = Symbol("fray.refHeldBytes");

/** The worker holding a nested task's value as bytes (kHeldBytes of them), once its owner knows: where its readers are sent. */
export const kHolder = Symbol("fray.refHolder");

export class ObjectRef<T = unknown> {
  declare private readonly _value: T;
  /** @internal */
  readonly [kOwner]: RefOwner;
  /** @internal */
  [kHeldBytes]?: number;
  /** @internal */
  [kHolder]?: number;

  /** @internal */
  constructor(
    readonly id: string,
    owner: RefOwner,
  ) {
    this[kOwner] = owner;
  }

  toString(): string {
    return `ObjectRef(${this.id})`;
  }
}

/**
 * Counts `ref`, just made in this process for a message to its head that makes it (a submit, a put, an actor call,
 * a stream's next item): the head counts this process as its borrower from that message, and it is given back
 * once `ref` is garbage (borrowed-refs.ts).
 */
export function madeHere<R extends ObjectRef>(ref: R): R {
  const owner = ref[kOwner];
  return owner.head === null ? ref : borrowed(ref, owner.id, owner.head, true);
}

const owners = new WeakMap<ActorMesh<RefHead>, RefOwner>();

/** The owner for refs kept by the head whose HeadActor is `head`. */
export function headOwner(head: ActorMesh<RefHead>): RefOwner {
  let owner = owners.get(head);
  if (!owner) owners.set(head, (owner = { head, id: head[kMesh].id }));
  return owner;
}

/** One owner per head seen here, so refs that arrive share one handle to it. */
const heads = new Map<string, RefOwner>();

/** The owner whose HeadActor has mesh id `id` at `addr`. */
export function headAt(addr: string, id: string): RefOwner {
  let owner = heads.get(id);
  if (!owner) heads.set(id, (owner = headOwner(actorMeshAt<RefHead>(addr, id, "fray-job-head", null, "HeadActor"))));
  return owner;
}

/** One owner per worker owner seen here. */
const workerOwners = new Map<string, RefOwner>();

/** The owner of refs put in worker `worker` (-1: none) whose WorkerOwner has mesh id `id` at `addr`. */
export function workerOwnerAt(addr: string, id: string, worker: number, mesh?: ActorMesh<RefHead>): RefOwner {
  let owner = workerOwners.get(id);
  if (!owner) {
    const head = mesh ?? actorMeshAt<RefHead>(addr, id, WORKER_OWNER_NAME, null, WORKER_OWNER_CLASS);
    workerOwners.set(id, (owner = { head, id, putBy: worker }));
  }
  return owner;
}

/**
 * A worker owner's ref leaving this process in a message: the token its receiver names when it has counted itself. The
 * owner's process pins the value itself; a borrower tells the owner (ahead of its own return of the value).
 */
function transitPin(ref: ObjectRef, owner: { head: ActorMesh<RefHead>; id: string }): string {
  if (!pinsMade()) return "";
  const token = currentProc().nextId();
  const local = LOCAL_OWNERS.get(owner.id);
  if (local) local.pin(ref.id, token);
  else pinSent(owner.id, owner.head as never, ref.id, token);
  return token;
}

registerHandleType<ObjectRef>({
  type: "objectRef",
  Class: ObjectRef,
  toWire: (ref) => {
    const owner = ref[kOwner];
    if (owner.head === null) {
      throw new SerializationError(
        `${ref} belongs to a sync job context, which keeps its values in this process: it cannot be sent to another. Send its value ` +
          `(await ctx.get(ref)), or run the job on the threads or processes backend`,
      );
    }
    const addr = owner.head[kMesh].addrs[0];
    if (owner.putBy === undefined) return [ref.id, addr, owner.id];
    const wire = [ref.id, addr, owner.id, transitPin(ref, owner), owner.putBy, ref[kHeldBytes] ?? 0];
    return ref[kHolder] === undefined ? wire : [...wire, ref[kHolder]];
  },
  // A ref decoded in its owner's process counts as the owner's own; anywhere else, as a borrow (ref-counts.ts). A put
  // owner's ref drops the pin of the message it came in.
  fromWire: (data) => {
    const [id, addr, head, token, putBy, heldBytes, holder] = data as [string, string, string, string?, number?, number?, number?];
    const owner = putBy === undefined ? headAt(addr, head) : workerOwnerAt(addr, head, putBy);
    const ref = new ObjectRef(id, owner);
    if (heldBytes) ref[kHeldBytes] = heldBytes;
    if (holder !== undefined) ref[kHolder] = holder;
    const local = LOCAL_OWNERS.get(head);
    if (!local) return borrowed(ref, head, owner.head!, false, token || undefined);
    local.track(ref);
    if (token) local.received([token]);
    return ref;
  },
});
