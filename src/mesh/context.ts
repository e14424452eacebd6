// What an endpoint can learn about where it runs: `context()`, `currentRank()`,
// `currentSize()`. Outside any actor they describe the client, rank 0 of 1.
import { messageContext } from "../runtime/context.ts";
import type { RawExtent } from "../runtime/messages.ts";
import { Extent, type Point } from "./extent.ts";

export interface ActorInstance {
  readonly actorId: string;
  /** This actor's point in the mesh it was spawned as. */
  readonly rank: Point;
  /** The mesh's name, as given to `spawn`. */
  readonly name: string;
  readonly className: string;
}

export interface Context {
  readonly actorInstance: ActorInstance;
  /** The receiver's point within the (possibly sliced) mesh the current message was sent to. */
  readonly messageRank: Point;
}

const ROOT = new Extent([], []);
const extents = new WeakMap<RawExtent, Extent>();

function extentOf(raw: RawExtent): Extent {
  let e = extents.get(raw);
  if (!e) extents.set(raw, (e = new Extent(raw[0], raw[1])));
  return e;
}

export function context(): Context {
  const ctx = messageContext.getStore();
  if (!ctx) {
    const point = ROOT.point(0);
    return { actorInstance: { actorId: "client", rank: point, name: "client", className: "" }, messageRank: point };
  }
  const { actor } = ctx;
  return {
    actorInstance: { actorId: actor.actorId, rank: extentOf(actor.extent).point(actor.rank), name: actor.meshName, className: actor.className },
    messageRank: extentOf(ctx.extent).point(ctx.rank),
  };
}

/** The receiver's point within the extent the current message was sent over. */
export function currentRank(): Point {
  return context().messageRank;
}

/** `{label: size}` of the extent the current message was sent over. */
export function currentSize(): Record<string, number> {
  return currentRank().extent.dims;
}
