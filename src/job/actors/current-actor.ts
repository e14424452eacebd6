// currentActor(): what an actor's constructor and methods learn of themselves —
// their own handle, their place in a group, a signal that fires when they are
// being shut down, and fail() to end themselves as a failure (so maxRestarts
// applies). On the mesh backends the job layer spawns each actor with plain
// data about it (ActorMeta, carried as the spawn's meta); the sync backend
// sets the context itself (../contexts/sync-actor.ts).
import { AsyncLocalStorage } from "node:async_hooks";
import { actorMeshAt } from "../../mesh/mesh-at.ts";
import { messageContext, type ActorIdentity } from "../../runtime/face/procs.ts";
import { headAt } from "../objects/object-ref.ts";
import type { ActorOptions } from "../base/options.ts";
import type { ActorHandle } from "./actor-handle.ts";
import { revivedHandle, type ActorTarget, type HostedRef } from "./actor-ref.ts";

/** What an actor's code learns of itself: `currentActor()`. */
export interface ActorContext<T = object> {
  /** A handle to this actor, as its creator got (sendable on the mesh backends; on `sync` it stays in the process). */
  readonly handle: ActorHandle<T>;
  /** Its index in its group (createActorGroup's member i); 0 for an actor made alone. */
  readonly index: number;
  /** Its group's name (the group's `name`, else its class's); for an actor made alone, its name, else its class's. */
  readonly groupName: string;
  /** Aborts as soon as the actor is asked to stop (killActor, its job or namespace ending) or dies: end long work on it. */
  readonly shutdownSignal: AbortSignal;
  /**
   * Ends the actor as a failure with `error`: its calls in flight and later ones reject saying so, and with `maxRestarts`
   * it is constructed again (same arguments) as when its process dies. Throws `error`, so the method stops here.
   */
  fail(error: unknown): never;
}

/** createActorGroup's word to each member's createActor: its group and index (not a user option). */
export interface GroupMember {
  readonly group: string;
  readonly index: number;
}

/** ActorOptions as createActorGroup passes them: with the member's place. */
export type MemberOptions = ActorOptions & { readonly groupMember?: GroupMember };

/** The plain data an actor is spawned with on the mesh backends (Spawn.meta). */
export interface ActorMeta {
  readonly fray: "actor";
  readonly index: number;
  readonly groupName: string;
  /** The head of the job that created it ([address, mesh id]): the owner of its handle. */
  readonly head: readonly [string, string];
  /** For an actor a namespace hosts: how its handle finds its next incarnation (key and incarnation set by the namespace). */
  readonly hosted?: HostedRef;
}

/** Its place: a member's group and index, else index 0 of a group of its own name (or its class's). */
export function placeOf(options: MemberOptions, className: string): { index: number; groupName: string } {
  const member = options.groupMember;
  return member ? { index: member.index, groupName: member.group } : { index: 0, groupName: options.name ?? className };
}

const slot = Symbol.for("fray.job.currentActor");
const g = globalThis as unknown as Record<symbol, AsyncLocalStorage<ActorContext | null> | undefined>;
/** The sync backend's actor contexts (the mesh backends' come from the message context). */
export const syncActorScope: AsyncLocalStorage<ActorContext | null> = (g[slot] ??= new AsyncLocalStorage<ActorContext | null>());

const built = new WeakMap<ActorIdentity, ActorContext>();

/**
 * The actor running this code: in its constructor or one of its methods, on every backend. Throws elsewhere (a task,
 * the driver, a plain mesh actor): there is no actor to speak of.
 */
export function currentActor<T = object>(): ActorContext<T> {
  const sync = syncActorScope.getStore();
  if (sync) return sync as ActorContext<T>;
  const actor = sync === null ? undefined : messageContext.getStore()?.actor;
  const meta = actor?.meta as Partial<ActorMeta> | undefined;
  if (!actor || meta?.fray !== "actor") {
    throw new Error(
      "currentActor() is for the constructor and methods of an actor made by createActor or createActorGroup; this code runs " +
        (actor ? `in ${actor.className}, which is not one (a task, or a mesh actor)` : "outside any actor (a driver or a task)"),
    );
  }
  let context = built.get(actor);
  if (!context) built.set(actor, (context = meshActorContext(actor, meta as ActorMeta)));
  return context as ActorContext<T>;
}

function meshActorContext(actor: ActorIdentity, meta: ActorMeta): ActorContext {
  let handle: ActorHandle<object> | null = null;
  return {
    get handle() {
      // Its own 1-rank mesh, at this process: the spawn's mesh id is the actor id without its rank.
      const meshId = actor.actorId.slice(0, actor.actorId.lastIndexOf("."));
      const mesh = actorMeshAt<object>(actor.proc.addr, meshId, actor.meshName, null, actor.className);
      const target: ActorTarget = meta.hosted ? { mesh, hosted: meta.hosted } : { mesh };
      return (handle ??= revivedHandle(target, headAt(meta.head[0], meta.head[1])));
    },
    index: meta.index,
    groupName: meta.groupName,
    shutdownSignal: actor.stopping(),
    fail(error: unknown): never {
      const cause = error instanceof Error ? error : new Error(`failed: ${String(error)}`);
      actor.abort(cause);
      throw cause;
    },
  };
}
