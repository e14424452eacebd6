// The ranks a collective runs among: the mesh (or slice) the current message
// was sent to, or (with `dims`) the ranks of it that share every other
// coordinate with this one, and the process each of them is in (asked once of
// the mesh's owner per version of the mesh). How pieces travel among them is
// exchange.ts.
import { currentProc, messageContext, type Proc } from "../../runtime/face/procs.ts";
import { askMeshAddrs, splitKey, SupervisionError, SUPERVISOR } from "../../runtime/face/supervision.ts";
import { describeRank } from "../errors.ts";
import { Extent } from "../shape/extent.ts";
import { ACTORS } from "../../runtime/face/actors.ts";
import { askAddrs, COLLECTIVES } from "../../runtime/face/collectives.ts";

export interface Group {
  readonly meshId: string;
  /** The calling rank's actor (what it holds for the group is freed when it stops). */
  readonly actor: string;
  /** The mesh's respawn count the message was sent with. */
  readonly version: number;
  /** Mesh members of the group, in group order. */
  readonly members: readonly number[];
  /** The call the message is (its ranks' shared id), if it has a reply port; and when this rank began it. */
  readonly call: string | undefined;
  readonly begun: number;
  /** Message ranks of the group's members, in group order (row-major over `dims`) — ranks within the slice the message went to. */
  readonly ranks: readonly number[];
  /** This rank's index in `ranks`. */
  readonly me: number;
  /** Proc address of each group member. */
  readonly addrs: readonly string[];
  /** Names the group in tags: same members, same key, on every rank. */
  readonly key: string;
  /** "rank 2 {gpus: 2} of mesh workers", for group member `i`. */
  describe(i: number): string;
}

/**
 * Where each mesh's members live, asked once of the mesh's owner per version
 * of the mesh (a respawned rank moves to a new process and bumps it).
 */
const addrCache = new Map<string, Promise<readonly string[]>>();

function meshAddrs(proc: Proc, meshId: string, version: number, owner: string): Promise<readonly string[]> {
  const local = proc.get(SUPERVISOR).addrsOf(meshId);
  if (local) return Promise.resolve(local);
  const cacheKey = `${meshId}@${version}`;
  let found = addrCache.get(cacheKey);
  if (!found) {
    found = askAddrs(proc, owner, (reply) => askMeshAddrs(proc, owner, meshId, reply)).catch((error: Error) => {
      if (!proc.lostPeer(owner)) throw error; // the owner's own answer
      throw new SupervisionError(`the owner of the mesh, ${owner}, is gone: ${error.message}`, { cause: error });
    });
    addrCache.set(cacheKey, found);
    found.catch(() => addrCache.delete(cacheKey));
    const actor = messageContext.getStore()!.actor.actorId;
    proc.get(COLLECTIVES).holdUntilGone(actor, () => addrCache.delete(cacheKey)); // asked again should another rank here need it
  }
  return found;
}

/** The group of the calling rank for collective `what` (e.g. "collective.allReduce"). */
export async function currentGroup(what: string, dims: readonly string[] | undefined): Promise<Group> {
  const ctx = messageContext.getStore();
  if (!ctx)
    throw new Error(
      `${what} must be called inside an endpoint that was called on every rank of a mesh (with call() or broadcast()); this code is not ` +
        `running inside an endpoint`,
    );
  const [meshId] = splitKey(ctx.actor.actorId);
  const spawned = new Extent(ctx.actor.extent[0], ctx.actor.extent[1]);
  const sent = new Extent(ctx.extent[0], ctx.extent[1]);
  // Rank r of the message is member selection[r] of the mesh; without it, member r.
  const memberOf = (r: number) => (ctx.selection ? ctx.selection[r] : r);
  const labels = sent.labels;
  for (const d of dims ?? []) {
    if (!labels.includes(d))
      throw new RangeError(`${what}: dims names '${d}', which is not a dimension of the mesh ${sent}; give some of: ${labels.join(", ")}`);
  }
  const along = new Set(dims ?? labels);
  const mine = sent.coords(ctx.rank);
  const ranks: number[] = [];
  for (let r = 0; r < sent.size; r++) {
    const c = sent.coords(r);
    if (labels.every((l) => along.has(l) || c[l] === mine[l])) ranks.push(r);
  }
  const proc = currentProc();
  const owner = proc.get(ACTORS).get(ctx.actor.actorId)?.owner ?? proc.addr;
  const version = ctx.version ?? 0;
  const all = await meshAddrs(proc, meshId, version, owner);
  const members = ranks.map(memberOf);
  const addrs = members.map((m) => all[m]);
  // After a respawn the group starts afresh (new key, sequence from 0) on every rank, the new one included.
  const key = `${meshId}${version ? `@${version}` : ""}/${members.length === spawned.size ? "*" : members.join(",")}`;
  const me = ranks.indexOf(ctx.rank);
  return {
    meshId,
    actor: ctx.actor.actorId,
    version,
    members,
    call: ctx.call,
    begun: ctx.begun ?? 0,
    ranks,
    me,
    addrs,
    key,
    describe: (i) => describeRank({ rank: members[i], coords: spawned.coords(members[i]), mesh: ctx.actor.meshName }),
  };
}
