// ActorRef: what an actor handle carries, and what it crosses the wire as —
// its target (the actor's 1-rank mesh; for an actor a namespace hosts, where
// to find its next incarnation) and its owner, the head of the job whose
// context made it. A handle that arrives somewhere runs its calls through the
// job context running there (a task's or an actor's). Where none runs — the
// driver it was returned to, another job's driver, an actor a namespace hosts
// — they go through its owner's head, which keeps their results; refs name
// their owner, so any job can read them (../objects/object-ref.ts).
import { SerializationError } from "../../wire/errors.ts";
import { registerHandleType, tooLargeArguments } from "../../wire/codec.ts";
import { kMesh, type ActorMesh } from "../../mesh/actor-mesh.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import type { ActorTarget } from "../base/actor-target.ts";
import { currentContext } from "../base/ambient.ts";
import { headAt, kOwner, madeHere, ObjectRef, type RefHead, type RefOwner } from "../objects/object-ref.ts";
import { ObjectRefStream } from "../objects/object-ref-stream.ts";
import { ActorError } from "../../mesh/errors.ts";
import { actorHandle, type ActorHandle, type RemoteMethod } from "./actor-handle.ts";

export type { ActorTarget, HostedRef } from "../base/actor-target.ts";

/** The target behind a handle, under a symbol so no method name can meet it. */
export const kActorTarget = Symbol("fray.actorTarget");

const kLocal = Symbol("fray.localHandle");

/** What a job's head owns: refs kept in its store, handles whose calls it runs where no job context does. */
type HeadOwner = Extract<RefOwner, { head: object }>;

export class ActorRef {
  /** null for a handle that cannot leave its process. */
  readonly [kActorTarget]: ActorTarget | null;
  readonly [kOwner]: HeadOwner | null;
  /** Why it cannot be sent, when it cannot (a symbol, as handles are proxies over this). */
  readonly [kLocal]: string;

  constructor(target: ActorTarget, owner: RefOwner);
  /** A handle whose calls only this process can make; `why` says so to whoever tries to send it. */
  constructor(target: null, owner: null, why: string);
  constructor(target: ActorTarget | null, owner: RefOwner | null, why = "") {
    this[kActorTarget] = target;
    this[kOwner] = owner?.head ? owner : null;
    this[kLocal] = why;
  }

  /** @internal Throws when this handle cannot be sent. */
  static sendable(ref: ActorRef): { target: ActorTarget; owner: HeadOwner } {
    const target = ref[kActorTarget];
    const owner = ref[kOwner];
    if (!target || !owner) throw new SerializationError(ref[kLocal] || "this actor handle cannot be sent to another process");
    return { target, owner };
  }
}

/** How a mesh-backed context makes a handle for a target: under a symbol, so it is not part of the JobContext API. */
export const kHandleFor = Symbol("fray.handleFor");

interface HandleFactory {
  [kHandleFor]<T>(target: ActorTarget): ActorHandle<T>;
}

/** A handle that arrived here (or that an actor made of itself): through the job context running its caller, else through its owner's head. */
export function revivedHandle(target: ActorTarget, owner: RefOwner): ActorHandle<object> {
  return revived(target, owner as HeadOwner);
}

function revived(target: ActorTarget, owner: HeadOwner): ActorHandle<object> {
  type Methods = Record<string, RemoteMethod<(...a: unknown[]) => AsyncIterable<unknown>>>;
  const context = () => currentContext() as Partial<HandleFactory> | null;
  return actorHandle(
    (method, args) => {
      const ctx = context();
      if (ctx?.[kHandleFor]) return (ctx[kHandleFor](target) as unknown as Methods)[method].remote(...args);
      const ref = madeHere(new ObjectRef(currentProc().nextId(), owner));
      callThroughHead(owner.head, ref.id, target, method, args);
      return ref;
    },
    new ActorRef(target, owner),
    (method, args, window) => {
      const ctx = context();
      if (ctx?.[kHandleFor]) return (ctx[kHandleFor](target) as unknown as Methods)[method].options({ window }).remoteStreaming(...args);
      const ref = madeHere(new ObjectRef<number>(currentProc().nextId(), owner));
      callThroughHead(owner.head, ref.id, target, method, args, window);
      const cause = (err: unknown) => {
        throw err instanceof ActorError ? err.cause : err;
      };
      return new ObjectRefStream(
        ref,
        {
          next: async (index) => {
            const id = await owner.head.remoteStreamNext.callOne(ref.id, index, null).catch(cause);
            return id === null ? null : madeHere(new ObjectRef(id, owner));
          },
          cancel: () => owner.head.remoteCancel.callOne(ref.id, true).catch(cause),
        },
        cancelOnDrop(owner, ref.id),
      );
    },
  );
}

/** What a stream dropped unread does: its head cancels it (made here, apart from the stream's closures, to hold its id and not its ref). */
function cancelOnDrop(owner: HeadOwner, id: string): () => void {
  return () => void owner.head.remoteCancel.callOne(id, true).catch(() => {});
}

/**
 * Sends the call of `method` to `target` through `head`, which fills ref `id`
 * with its result (`stream`: keeps what it yields as stream `id`); one too
 * large to send throws naming the method.
 */
export function callThroughHead(
  head: ActorMesh<RefHead>,
  id: string,
  target: ActorTarget,
  method: string,
  args: readonly unknown[],
  stream: number | false = false,
): void {
  try {
    head.remoteCallActor.broadcast(id, target, method, args as unknown[], stream);
  } catch (err) {
    throw tooLargeArguments(err, `${target.mesh[kMesh].className}.${method}`, args);
  }
}

type WireTarget = [ActorMesh<object>, string, string] | [ActorMesh<object>, string, string, string | null, string, number, number];

registerHandleType<ActorRef>({
  type: "actorRef",
  Class: ActorRef,
  toWire: (ref): WireTarget => {
    const { target, owner } = ActorRef.sendable(ref);
    const { mesh, hosted } = target;
    const head = owner.head[kMesh].addrs[0];
    return hosted ? [mesh, head, owner.id, hosted.ns, hosted.key, hosted.incarnation, hosted.maxTaskRetries] : [mesh, head, owner.id];
  },
  fromWire: (data) => {
    const [mesh, head, headId, ns, key, incarnation, maxTaskRetries] = data as [ActorMesh<object>, string, string, string | null, string?, number?, number?];
    const target: ActorTarget = key === undefined ? { mesh } : { mesh, hosted: { ns, key, incarnation: incarnation!, maxTaskRetries: maxTaskRetries! } };
    return revived(target, headAt(head, headId) as HeadOwner) as unknown as ActorRef;
  },
});
