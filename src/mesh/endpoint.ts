// Endpoints and their adverbs. Every adverb sends at call time; arguments are
// encoded once, at the call site (so an unsendable argument throws there and
// nothing is sent), and the same bytes go to every rank.
import { encodeArguments, tooLargeArguments } from "../wire/codec.ts";
import { DecodingError, FrameError } from "../wire/errors.ts";
import { BUILTIN_PREFIX, CALLS, checkArity, endpointNames, endpointOptions, type CallFields, type PortRef } from "../runtime/face/actors.ts";
import { currentProc, hold, release } from "../runtime/face/procs.ts";
import { countSent, endpointStats, metricsAll, type EndpointStats } from "../runtime/face/metrics.ts";
import { hasShardRef, ShardRef } from "../runtime/face/buffers.ts";
import { ARRAY_OPS, type ShardMeta } from "./array/array-ops.ts";
import { DistributedArray, type ShardArgs } from "./array/distributed-array.ts";
import { ActorError, SupervisionError, describeRank } from "./errors.ts";
import type { MeshTarget } from "./mesh-target.ts";
import { RankGroups, splitUnreachable, type Group } from "./rank-groups.ts";
import type { NumericArray } from "./collectives/reduce-op.ts";
import { ValueMesh } from "./shape/value-mesh.ts";

/**
 * The endpoint of every rank of a mesh. `A` are its arguments, `R` what it
 * returns. Where it takes a typed array, a DistributedArray on the same
 * processes may be passed: each rank gets its own shard.
 */
export interface Endpoint<A extends unknown[], R> {
  /**
   * Calls every rank; resolves with their values, or rejects with the first
   * ActorError in rank order — or at once with a SupervisionError if a rank dies.
   */
  call(...args: ShardArgs<A>): Promise<ValueMesh<R>>;
  /** Calls the only rank of a mesh of size 1. */
  callOne(...args: ShardArgs<A>): Promise<R>;
  /** Calls one rank, the one with the fewest calls in flight. */
  choose(...args: ShardArgs<A>): Promise<R>;
  /** Calls every rank; yields values in arrival order. */
  stream(...args: ShardArgs<A>): AsyncIterable<R>;
  /** Sends to every rank without waiting for anything. */
  broadcast(...args: ShardArgs<A>): void;
  /**
   * Calls every rank and keeps each rank's result (a typed array) there, as
   * its shard of the DistributedArray returned at once; nothing is sent back
   * but each shard's type and length. Only for endpoints returning typed arrays.
   */
  rref: R extends NumericArray ? (...args: ShardArgs<A>) => DistributedArray<R> : never;
}

type Reply = (rank: number, ok: boolean, value: unknown) => void;
const NOTHING = (): void => {};

export class EndpointImpl<A extends unknown[], R> implements Endpoint<A, R> {
  #next = 0;
  /** The ranks of the mesh grouped by process, kept while its members stay where they are. */
  readonly #groups: RankGroups;
  /** Its metrics record (FRAY_METRICS=all: the messages sent), found once: a send counts into it with no lookup. */
  private readonly stats: EndpointStats | undefined;

  constructor(
    private readonly mesh: MeshTarget,
    readonly name: string,
  ) {
    const Class = mesh.Class;
    if (Class && !name.startsWith(BUILTIN_PREFIX) && !endpointOptions(Class, name)) {
      throw new TypeError(`${mesh.className} has no endpoint '${name}'; its endpoints are: ${endpointNames(Class).join(", ") || "(none)"}`);
    }
    this.stats = metricsAll ? endpointStats(mesh.className, name) : undefined;
    this.#groups = new RankGroups(mesh);
  }

  call(...args: A): Promise<ValueMesh<R>> {
    const { shape } = this.mesh;
    const n = shape.extent.size;
    const values = new Array<R>(n);
    const errors = new Array<Error | undefined>(n);
    let remaining = n;
    const result = deferred<ValueMesh<R>>();
    if (n === 0) result.resolve(ValueMesh.of(shape.extent, values));
    else {
      this.#send(
        args,
        this.#groups.all(),
        (rank, ok, value) => {
          if (!ok && value instanceof SupervisionError) {
            // A dead rank can never answer: fail now rather than wait on the others.
            result.reject(value);
            return false;
          }
          if (ok) values[rank] = value as R;
          else errors[rank] = value as Error;
          if (--remaining > 0) return true;
          const first = errors.find((e) => e !== undefined);
          if (first) result.reject(first);
          else result.resolve(ValueMesh.of(shape.extent, values));
          return false;
        },
        result.reject,
      );
    }
    return result.promise;
  }

  callOne(...args: A): Promise<R> {
    const size = this.mesh.shape.extent.size;
    if (size !== 1) {
      throw new RangeError(
        `callOne needs a mesh of exactly 1 rank, but ${this.mesh.className}.${this.name} is on a mesh of size ${size} ` +
          `${this.mesh.shape.extent}; slice it to one rank or use call()`,
      );
    }
    return this.#one(args, 0);
  }

  choose(...args: A): Promise<R> {
    const { shape, inflight } = this.mesh;
    const n = shape.extent.size;
    if (n === 0) throw new RangeError(`choose needs at least one rank, but the mesh of ${this.mesh.className} is empty`);
    let best = -1;
    let bestLoad = Infinity;
    for (let i = 0; i < n; i++) {
      const rank = (this.#next + i) % n;
      const load = inflight.get(shape.members[rank]) ?? 0;
      if (load < bestLoad) [best, bestLoad] = [rank, load];
    }
    this.#next = (best + 1) % n;
    const member = shape.members[best];
    inflight.set(member, bestLoad + 1);
    const done = () => inflight.set(member, (inflight.get(member) ?? 1) - 1);
    const result = this.#one(args, best);
    result.then(done, done);
    return result;
  }

  stream(...args: A): AsyncIterable<R> {
    const n = this.mesh.shape.extent.size;
    const arrived: Array<{ ok: boolean; value: unknown }> = [];
    let wake: (() => void) | null = null;
    const push = (ok: boolean, value: unknown) => {
      arrived.push({ ok, value });
      wake?.();
    };
    if (n > 0)
      this.#send(
        args,
        this.#groups.all(),
        (_rank, ok, value) => (push(ok, value), arrived.length < n),
        (e) => push(false, e),
      );
    return {
      async *[Symbol.asyncIterator]() {
        for (let i = 0; i < n; i++) {
          while (arrived.length <= i) await new Promise<void>((r) => (wake = r));
          const { ok, value } = arrived[i];
          if (!ok) throw value;
          yield value as R;
        }
      },
    };
  }

  readonly rref = ((...args: A): DistributedArray => {
    const { mesh, name } = this;
    const Class = mesh.Class;
    if (Class && endpointOptions(Class, name)!.explicitResponsePort) {
      throw new TypeError(
        `${mesh.className}.${name}.rref: the endpoint answers through a Port; rref keeps a returned typed array, so make the endpoint return it`,
      );
    }
    this.#checkArity(args);
    return new DistributedArray(
      mesh,
      `${mesh.className}.${name}.rref`,
      (id) => mesh.endpoint(ARRAY_OPS.rref).call(id, name, ...args) as Promise<ValueMesh<ShardMeta>>,
    );
  }) as Endpoint<A, R>["rref"];

  /** @internal Calls rank `rank` of the mesh. */
  callRank(rank: number, ...args: A): Promise<R> {
    return this.#one(args, rank);
  }

  broadcast(...args: A): void {
    // A message too large to send throws here, as an unsendable argument does — or, found only once the mesh can be sent to, is a
    // warning. A mesh that can never be sent to reports that through `initialized`.
    let tooLarge: Error | null | undefined;
    this.#send(args, this.#groups.all(), null, (e) => {
      if (!(e instanceof FrameError)) return;
      if (tooLarge === undefined) tooLarge = e;
      else process.emitWarning(`${this.mesh.className}.${this.name}.broadcast was not sent: ${e.message}`);
    });
    if (tooLarge) throw tooLarge;
    tooLarge = null;
  }

  #one(args: A, rank: number): Promise<R> {
    const result = deferred<R>();
    this.#send(args, this.#groups.one(rank), (_rank, ok, value) => (ok ? result.resolve(value as R) : result.reject(value), false), result.reject);
    return result.promise;
  }

  /**
   * Sends to `ranks`. With `onReply`, opens a reply port that stays open (and
   * keeps the process alive) while `onReply` returns true; a lost peer
   * becomes a SupervisionError for its ranks.
   */
  #send(args: A, targets: readonly Group[], onReply: ((rank: number, ok: boolean, value: unknown) => boolean) | null, fail: (e: Error) => void): void {
    const { mesh, name } = this;
    this.#checkArity(args);
    if (hasShardRef(args)) for (const a of args) if (a instanceof ShardRef) a.checkTarget(mesh);
    const payload = encodeArguments(args, `${mesh.className}.${name}`);
    const proc = currentProc();
    const blocked = splitUnreachable(proc, mesh, targets);
    const groups = blocked ? blocked.groups : targets;
    let reply: PortRef | undefined;
    let finish = NOTHING;
    let settle: Reply = NOTHING;
    if (onReply) {
      const open = new Set<number>();
      for (const g of targets) for (const r of g.ranks) open.add(r);
      settle = (rank, ok, value) => {
        if (!open.delete(rank)) return;
        const keep = onReply(rank, ok, value);
        if (!keep || open.size === 0) finish();
      };
      // Replies from the ranks; failures known here (below) are settled as they are.
      const id = proc.openPort((rank, ok, value) => settle(rank, ok, ok ? value : callError(mesh, name, rank, value)));
      // A lost peer answers for its ranks with a SupervisionError, not an ActorError.
      const unwatch = proc.onPeerLost((addr, error) => {
        for (const g of groups) {
          if (g.addr !== addr) continue;
          for (const r of g.ranks) {
            if (open.has(r))
              settle(
                r,
                false,
                new SupervisionError(`${mesh.className}.${name} on ${describeRank(mesh.locate(r))} cannot complete: ${error.message}`, { cause: error }),
              );
          }
        }
      });
      hold();
      reply = { addr: proc.addr, id };
      finish = () => {
        finish = NOTHING;
        proc.closePort(id);
        unwatch();
        release();
      };
    }
    // Ranks known to be dead or stopped answer at once; the rest are sent to.
    for (const [rank, error] of blocked?.errors ?? []) settle(rank, false, error);
    if (groups.length === 0) return;
    const { stats } = this;
    mesh.whenSendable(
      () => {
        if (stats) countSent(stats, groups, payload);
        // Absent fields are left out, not undefined (no spread of a temporary object each).
        const fields: { -readonly [K in keyof CallFields]: CallFields[K] } = { mesh: mesh.id, endpoint: name, extent: mesh.rawExtent };
        if (reply) fields.reply = reply;
        if (mesh.sel) fields.selection = mesh.sel;
        if (mesh.version) fields.version = mesh.version;
        proc.get(CALLS).send(fields, groups, payload);
      },
      (error) => {
        finish();
        fail(tooLargeArguments(error, `${mesh.className}.${name}`, args) as Error); // which argument, of which call
      },
    );
  }

  #checkArity(args: A): void {
    const Class = this.mesh.Class;
    if (!Class || this.name.startsWith(BUILTIN_PREFIX)) return;
    const method = (Class.prototype as Record<string, Function>)[this.name];
    checkArity(method, args.length, `${this.mesh.className}.${this.name}`, endpointOptions(Class, this.name)!.explicitResponsePort ? 1 : 0);
  }
}

/** A rank's failure as the caller sees it: supervision failures stay SupervisionErrors; a reply that cannot be decoded is no failure of the rank. */
function callError(mesh: MeshTarget, endpoint: string, rank: number, remote: unknown): Error {
  const where = mesh.locate(rank);
  if (remote instanceof SupervisionError) {
    return new SupervisionError(`${mesh.className}.${endpoint} on ${describeRank(where)}: ${remote.message}`, { cause: remote.cause });
  }
  if (remote instanceof DecodingError)
    return new DecodingError(`the reply of ${mesh.className}.${endpoint} from ${describeRank(where)}`, remote.from, remote.cause);
  return new ActorError(mesh.className, endpoint, where, remote);
}

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}
