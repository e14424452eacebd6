// What an endpoint can learn about where it runs: `context()`, `currentRank()`,
// `currentSize()`. Outside any actor they describe the client, rank 0 of 1.
import { messageContext } from "../runtime/face/procs.ts";
import type { RawExtent } from "../runtime/face/actors.ts";
import { Extent, type Point } from "./shape/extent.ts";

export interface ActorInstance {
  readonly actorId: string;
  /** This actor's point in the mesh it was spawned as. */
  readonly rank: Point;
  /** The mesh's name, as given to `spawn`. */
  readonly name: string;
  readonly className: string;
  /** Kills this actor: its owner's `supervise()` gets a MeshFailure whose cause is `reason`. */
  abort(reason?: string | Error): void;
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
    const abort = (reason?: string | Error) => {
      throw new TypeError(`abort(${String(reason ?? "")}) is for actors; this code is not running inside an endpoint`);
    };
    return { actorInstance: { actorId: "client", rank: point, name: "client", className: "", abort }, messageRank: point };
  }
  const { actor } = ctx;
  return {
    actorInstance: {
      actorId: actor.actorId,
      rank: extentOf(actor.extent).point(actor.rank),
      name: actor.meshName,
      className: actor.className,
      abort: actor.abort,
    },
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
