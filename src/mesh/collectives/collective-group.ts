// The ranks a collective runs among, and how their pieces travel. The group is
// the mesh (or slice) the current message was sent to, or (with `dims`) the ranks of it
// that share every other coordinate with this one. Pieces go straight from
// Proc to Proc (a "coll" frame, or a hand-over within one process), never
// through an actor's mailbox: the actor is busy awaiting the collective.
import { decode, encode } from "../../wire/codec.ts";
import { config, settingNow } from "../../runtime/base/config.ts";
import { messageContext } from "../../runtime/proc/context.ts";
import type { Proc } from "../../runtime/proc/proc.ts";
import { SupervisionError } from "../../runtime/supervision/supervision.ts";
import { splitKey } from "../../runtime/supervision/supervisor.ts";
import { describeRank } from "../errors.ts";
import { Extent } from "../extent.ts";
import { currentProc } from "../../runtime/runtime.ts";
import { ACTORS } from "../../runtime/actors/actor-table.ts";
import { COLLECTIVES } from "../../runtime/bulk/collective-inbox.ts";
import { SUPERVISOR } from "../../runtime/supervision/supervisor.ts";

/** A rank of this process hands a piece to another: no copy, no encoding. */
class LocalPiece {
  constructor(readonly value: unknown) {}
}

export interface Group {
  readonly meshId: string;
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
    found = new Promise<readonly string[]>((resolve, reject) => {
      const port = proc.openPort((_rank, ok, value) => {
        proc.closePort(port);
        unwatch();
        if (ok) resolve(value as readonly string[]);
        else reject(value);
      });
      const unwatch = proc.onPeerLost((addr, error) => {
        if (addr !== owner) return;
        proc.closePort(port);
        unwatch();
        reject(new SupervisionError(`the owner of the mesh, ${owner}, is gone: ${error.message}`, { cause: error }));
      });
      proc.send(owner, { kind: "coll-addrs", mesh: meshId, reply: { addr: proc.addr, id: port } });
    });
    addrCache.set(cacheKey, found);
    found.catch(() => addrCache.delete(cacheKey));
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
    ranks,
    me,
    addrs,
    key,
    describe: (i) => describeRank({ rank: members[i], coords: spawned.coords(members[i]), mesh: ctx.actor.meshName }),
  };
}

/** Each rank's calls on a group, counted so successive collectives never mix their pieces. */
const sequence = new Map<string, number>();

/**
 * One collective call's exchange: `send` a piece to a group member, `recv` one
 * from a member. Every `recv` rejects with SupervisionError when a member's
 * process is lost, and with a timeout error after FRAY_COLLECTIVE_TIMEOUT_MS.
 */
export class Exchange {
  readonly #proc = currentProc();
  readonly #prefix: string;
  readonly #failed: Promise<never>;
  #fail!: (error: Error) => void;
  #unwatch: () => void = () => {};
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly group: Group,
    readonly what: string,
  ) {
    const counter = `${group.key}@${group.me}`;
    const seq = sequence.get(counter) ?? 0;
    sequence.set(counter, seq + 1);
    this.#prefix = `${group.key}#${seq}`;
    this.#failed = new Promise<never>((_, reject) => (this.#fail = reject));
    this.#failed.catch(() => {});
    const lost = (addr: string, error: Error) => {
      const gone = group.addrs.flatMap((a, i) => (a === addr && i !== group.me ? [group.describe(i)] : []));
      if (gone.length) this.#fail(new SupervisionError(`${what} cannot complete: ${gone.join(", ")} is gone: ${error.message}`, { cause: error }));
    };
    this.#unwatch = this.#proc.onPeerLost(lost);
    for (const addr of new Set(group.addrs)) {
      const dead = addr === this.#proc.addr ? undefined : this.#proc.lostPeer(addr);
      if (dead) lost(addr, dead);
    }
    const ms = config.collectiveTimeoutMs;
    this.#timer = setTimeout(
      () =>
        this.#fail(
          new Error(
            `${what} timed out after ${ms} ms waiting for its peers (${settingNow("collectiveTimeoutMs")}); every rank of the group must make ` +
              `the same collective calls in the same order`,
          ),
        ),
      ms,
    );
  }

  #tag(round: string, from: number, to: number): string {
    return `${this.#prefix}.${round}.${from}>${to}`;
  }

  /** Sends `value` to member `to`. Its typed arrays must not change until the peer has it (callers copy what the user may change). */
  send(to: number, round: string, value: unknown): void {
    const tag = this.#tag(round, this.group.me, to);
    const addr = this.group.addrs[to];
    if (addr === this.#proc.addr) this.#proc.get(COLLECTIVES).deliver(tag, new LocalPiece(value));
    else this.#proc.send(addr, { kind: "coll", tag }, encode(value, this.what));
  }

  recv(from: number, round: string): Promise<unknown> {
    const tag = this.#tag(round, from, this.group.me);
    const got = new Promise<unknown>((resolve, reject) => {
      this.#proc.get(COLLECTIVES).take(tag, (piece) => {
        if (piece instanceof LocalPiece) return resolve(piece.value);
        const { payload, attachments } = piece as { payload: Uint8Array; attachments: readonly Uint8Array[] };
        try {
          resolve(decode(payload, attachments));
        } catch (err) {
          reject(err);
        }
      });
    });
    return Promise.race([got, this.#failed]);
  }

  /** Sends `value(i)` to every other member and resolves with what each sent back, by member index (own slot: undefined). */
  async allToAll(round: string, value: (to: number) => unknown): Promise<unknown[]> {
    const { me, ranks } = this.group;
    for (let i = 0; i < ranks.length; i++) if (i !== me) this.send(i, round, value(i));
    return Promise.all(ranks.map((_, i) => (i === me ? undefined : this.recv(i, round))));
  }

  /** Stops watching. After a failure, the pieces this rank will never take are dropped. */
  close(failed: boolean): void {
    clearTimeout(this.#timer);
    this.#unwatch();
    if (failed) this.#proc.get(COLLECTIVES).abandon(`${this.#prefix}.`, `>${this.group.me}`);
  }
}
