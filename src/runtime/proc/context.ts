// The actor and message an endpoint is running for. Kept in AsyncLocalStorage so
// it survives `await`; stored on globalThis so two copies of this module (say,
// compiled and source) still share one context.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Call, RawExtent } from "../base/messages.ts";
import type { Proc } from "./proc.ts";

export interface ActorIdentity {
  /** Unique id of the actor: mesh id and rank. */
  readonly actorId: string;
  readonly meshName: string;
  readonly className: string;
  /** Rank in the actor's own (spawned) mesh. */
  readonly rank: number;
  readonly extent: RawExtent;
  /** The tag of its output lines (Spawn.origin). */
  readonly origin?: string;
  /** Kills the actor; its owner gets a MeshFailure with this reason. */
  readonly abort: (reason?: unknown) => void;
  /** The Proc the actor lives in: `currentProc()` inside it when one OS process holds several (virtual-proc.ts). */
  readonly proc: Proc;
  /** What its spawner told it about itself (Spawn.meta), if anything. */
  readonly meta?: unknown;
  /** A signal that aborts as soon as the actor is asked to stop (before its running calls end, so they can) or dies. */
  readonly stopping: () => AbortSignal;
}

export interface MessageContext {
  readonly actor: ActorIdentity;
  /** Rank of the receiver within the extent the message was sent over. */
  readonly rank: number;
  readonly extent: RawExtent;
  /** The member each rank of `extent` is, when the message went to a slice (else rank r is member r). */
  readonly selection?: readonly number[];
  /** The mesh's respawn count the message was sent with (Call.v). */
  readonly version?: number;
  /** What every rank of one call knows it by (its reply port), when it has one. */
  readonly call?: string;
  /** Its place among the messages this thread's actors began (messagesBegun() as it began). */
  readonly begun?: number;
}

let begun = 0;

/** The context of message `call` to `actor`, as rank `rank` of it: one more message begun. */
export function messageContextOf(actor: ActorIdentity, rank: number, call: Call): MessageContext {
  const { extent, selection, version, reply } = call;
  return { actor, rank, extent, selection, version, call: reply ? `${reply.addr}#${reply.id}` : undefined, begun: ++begun };
}

/** How many messages this thread's actors have begun. */
export function messagesBegun(): number {
  return begun;
}

const slot = Symbol.for("fray.runtime.context");
const g = globalThis as unknown as Record<symbol, AsyncLocalStorage<MessageContext> | undefined>;
export const messageContext: AsyncLocalStorage<MessageContext> = (g[slot] ??= new AsyncLocalStorage<MessageContext>());
