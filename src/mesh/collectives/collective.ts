// mesh/collectives: allReduce & co. (this file) over a group of ranks
// (collective-group.ts), whose pieces travel through an Exchange (exchange.ts),
// with deterministic reductions (reduce-op.ts, and simd-fold.ts for float
// arrays).
//
// Mesh collectives, like torch.distributed / ray.util.collective: called inside
// an endpoint running on every rank of a mesh, on typed arrays, in place.
//
//   class Worker extends Actor {
//     async step() { … await collective.allReduce(grads, { op: "avg" }); … }
//   }
//   await workers.step.call();
//
// The group is the mesh the message was sent to; `dims` narrows it to the ranks
// that share every other coordinate (Monarch's reduce(dims)). Every rank of a
// group must make the same collective calls in the same order, with the same
// length, element type, op and root — a mismatch is an error on every rank.
//
// Every call starts with a round in which each rank sends every peer a piece
// carrying its call's description (so every rank sees a mismatch, and knows
// its peers' connections, whose loss fails the call). Small allReduces send
// the whole array in that round (one round: latency-optimal); large ones
// reduce-scatter then all-gather (each rank sends 2(n−1)/n of the array:
// bandwidth-optimal, like a ring, in two rounds instead of 2(n−1)).
//
// Between ranks of one host, a large array's pieces go through shared memory:
// the sender `stage`s them in its outbox once, and a piece then carries only
// where they are (Exchange.data); receivers read them from there (fill, part).
import { config } from "../settings.ts";
import { pathStats, type PathStats, type PiecePath } from "../../runtime/face/buffers.ts";
import type { Group } from "./collective-group.ts";
import type { Exchange } from "./exchange.ts";
import { checkArray, checkOp, finish, fold, type NumericArray, type ReduceOp } from "./reduce-op.ts";
import { simdChunks, simdKind } from "./simd-fold.ts";

export type { NumericArray, ReduceOp, PathStats as CollectivePathStats, PiecePath as CollectivePath };

export interface GroupOptions {
  /** Run among the ranks that differ only along these dimensions (default: all of the message's). */
  readonly dims?: readonly string[];
}

export interface ReduceOptions extends GroupOptions {
  /** Default "sum". "avg" on an integer array truncates, as its element type does. */
  readonly op?: ReduceOp;
}

export interface RootOptions extends GroupOptions {
  /** The root's index in the group (its rank along `dims`, row-major); default 0. */
  readonly root?: number;
}

/** What every rank says about its call, compared across the group. */
interface Meta {
  readonly c: string;
  readonly t: string;
  readonly n: number;
  readonly o?: string;
  readonly r?: number;
}

interface Piece {
  readonly m: Meta;
  readonly d?: NumericArray;
}

function describeMeta(m: Meta): string {
  return `${m.c}(${m.t}[${m.n}]${m.o ? `, op ${m.o}` : ""}${m.r !== undefined ? `, root ${m.r}` : ""})`;
}

/** Throws on every rank when the group's calls differ. */
function checkAgreement(what: string, group: Group, mine: Meta, pieces: readonly unknown[]): Piece[] {
  const all = pieces.map((p, i) => (i === group.me ? { m: mine } : (p as Piece)));
  const differs = all.some(({ m }) => m.c !== mine.c || m.t !== mine.t || m.n !== mine.n || m.o !== mine.o || m.r !== mine.r);
  if (differs) {
    const calls = all.map(({ m }, i) => `${group.describe(i)}: ${describeMeta(m)}`).join("; ");
    throw everyRank(
      new RangeError(
        `${what}: the ranks of the group called different collectives (${calls}); every rank must pass the same kind of typed array, length, op ` +
          `and root, in the same order of calls`,
      ),
    );
  }
  return all;
}

// The exchange machinery loads with the first collective, not with `fray/mesh`, which every actor
// module imports. One promise, so calls made without awaiting each other still start in call order.
let groups: Promise<[typeof import("./collective-group.ts"), typeof import("./exchange.ts")]> | null = null;

/** Runs `body` on the current group's exchange, closing it however it ends. */
async function run<T>(what: string, dims: readonly string[] | undefined, body: (ex: Exchange, group: Group) => Promise<T>): Promise<T> {
  const [{ currentGroup }, { Exchange }] = await (groups ??= Promise.all([import("./collective-group.ts"), import("./exchange.ts")]));
  const group = await currentGroup(what, dims);
  const ex = await Exchange.open(group, what);
  try {
    const result = await body(ex, group);
    ex.close(false);
    return result;
  } catch (err) {
    ex.close(true, seenByEveryRank.has(err as Error) ? undefined : err);
    throw err;
  }
}

/** Errors every rank of the group raises alike (a mismatch): no rank needs telling of another's. */
const seenByEveryRank = new WeakSet<Error>();

function everyRank<E extends Error>(error: E): E {
  seenByEveryRank.add(error);
  return error;
}

function meta(c: string, array: NumericArray, op?: ReduceOp, root?: number): Meta {
  return { c, t: array.constructor.name, n: array.length, ...(op ? { o: op } : {}), ...(root !== undefined ? { r: root } : {}) };
}

function checkRoot(what: string, root: unknown, size: number): number {
  if (!Number.isInteger(root) || (root as number) < 0 || (root as number) >= size) {
    throw new RangeError(`${what}: root must be an integer index into the group of ${size} ranks (0 to ${size - 1}), got ${String(root)}`);
  }
  return root as number;
}

/** Bytes per chunk of a reduction: the chunk being summed and a peer's part of it stay in cache. */
const CHUNK_BYTES = 128 * 1024;

/**
 * `op` over the members' pieces in group order (`own` standing for this member's) into `into`, which
 * may be `own`'s memory. Chunk by chunk, so a piece in shared memory is read in small parts, each
 * folded while in cache, with no array as large as the pieces made; float arrays fold in SIMD.
 */
async function combine<A extends NumericArray>(ex: Exchange, op: ReduceOp, own: A, pieces: readonly Piece[], into: A): Promise<A> {
  const { me, ranks } = ex.group;
  const bpe = own.BYTES_PER_ELEMENT;
  const step = Math.min(CHUNK_BYTES / bpe, own.length);
  const kind = simdKind(own);
  const simd = kind ? simdChunks(CHUNK_BYTES) : null;
  const Ctor = own.constructor as { new (n: number): A; new (buffer: ArrayBufferLike, offset: number, length: number): A };
  const sum = simd ? new Ctor(simd.acc.buffer, simd.acc.byteOffset, step) : new Ctor(step);
  const scratch = simd ? new Ctor(simd.x.buffer, simd.x.byteOffset, step) : new Ctor(step);
  for (let start = 0; start < own.length; start += step) {
    const len = Math.min(step, own.length - start);
    const acc = (len === step ? sum : sum.subarray(0, len)) as A;
    const buf = (len === step ? scratch : scratch.subarray(0, len)) as A;
    for (let i = 0; i < ranks.length; i++) {
      const part = i === me ? (own.subarray(start, start + len) as A) : ex.part(pieces[i].d, start, buf);
      if (part === null) await ex.failed();
      if (i === 0) acc.set(part as never);
      else if (simd) {
        if (part !== buf) buf.set(part as never);
        const vector = (len * bpe) & ~15;
        simd.fold(kind!, op, vector);
        if (vector < len * bpe) fold(op, acc.subarray(vector / bpe), buf.subarray(vector / bpe));
      } else fold(op, acc, part!);
    }
    into.set(acc as never, start);
  }
  finish(op, into, ranks.length);
  return into;
}

/** Start of member `i`'s block when `n` elements are split into `size` blocks. */
const blockStart = (n: number, size: number, i: number) => Math.floor((n * i) / size);

/** Reduces `array` across the group, in place on every rank; resolves with it. */
async function allReduce<A extends NumericArray>(array: A, options: ReduceOptions = {}): Promise<A> {
  const what = "collective.allReduce";
  checkArray(what, array);
  const op = checkOp(what, options.op ?? "sum");
  return run(what, options.dims, async (ex, group) => {
    const size = group.ranks.length;
    const mine = meta("allReduce", array, op);
    if (size === 1) return (finish(op, array, 1), array);
    if (array.byteLength <= config.collectiveDirectMaxBytes) {
      const copy = array.slice() as A;
      const pieces = checkAgreement(what, group, mine, await ex.allToAll("a", (to) => ({ m: mine, d: ex.data(to, copy, 0) })));
      return combine(ex, op, copy, pieces, array);
    }
    // Reduce-scatter: member i reduces block i. Block i of `array` is only overwritten once member i
    // has it (its all-gather piece answers ours), so the pieces may alias `array`. In shared memory,
    // block i is at its own offset in the outbox; this member's reduced block then goes in its place.
    const n = array.length;
    const bpe = array.BYTES_PER_ELEMENT;
    const at = (i: number) => blockStart(n, size, i);
    const block = (i: number) => array.subarray(at(i), at(i + 1)) as A;
    if (ex.share(array.byteLength)) for (let i = 0; i < size; i++) if (i !== group.me && ex.isShared(i)) ex.stage(at(i) * bpe, block(i));
    const parts = checkAgreement(what, group, mine, await ex.allToAll("rs", (to) => ({ m: mine, d: ex.data(to, block(to), at(to) * bpe) })));
    const acc = await combine(ex, op, block(group.me), parts, block(group.me));
    // All-gather: every member's reduced block to everyone (a copy for those not on shared memory: it is the user's array).
    ex.stage(at(group.me) * bpe, acc);
    const copy = once(() => acc.slice());
    const gathered = await ex.allToAll("ag", (to) => ex.data(to, acc, at(group.me) * bpe, copy));
    for (let i = 0; i < size; i++) if (i !== group.me) await ex.fill(gathered[i], block(i));
    return array;
  });
}

/**
 * Gathers every member's `array` (all the same length): resolves with a new
 * array of the same type, of length `array.length × group size`, holding them
 * in group order.
 */
async function allGather<A extends NumericArray>(array: A, options: GroupOptions = {}): Promise<A> {
  const what = "collective.allGather";
  checkArray(what, array);
  return run(what, options.dims, async (ex, group) => {
    const mine = meta("allGather", array);
    if (ex.share(array.byteLength)) ex.stage(0, array);
    const copy = once(() => array.slice());
    const pieces = checkAgreement(what, group, mine, await ex.allToAll("g", (to) => ({ m: mine, d: ex.data(to, array, 0, copy) })));
    const out = new (array.constructor as new (n: number) => A)(array.length * group.ranks.length);
    for (let i = 0; i < pieces.length; i++) await ex.fill(i === group.me ? array : pieces[i].d, out.subarray(i * array.length, (i + 1) * array.length));
    return out;
  });
}

/**
 * Reduces `array` (whose length the group size divides) across the group and
 * resolves, on member i, with block i of the result (a new array of
 * `length / size` elements). `array` is left as it was.
 */
async function reduceScatter<A extends NumericArray>(array: A, options: ReduceOptions = {}): Promise<A> {
  const what = "collective.reduceScatter";
  checkArray(what, array);
  const op = checkOp(what, options.op ?? "sum");
  return run(what, options.dims, async (ex, group) => {
    const size = group.ranks.length;
    if (array.length % size !== 0)
      throw everyRank(new RangeError(`${what}: the array's length ${array.length} is not a multiple of the group's ${size} ranks; pad it to a multiple`));
    const mine = meta("reduceScatter", array, op);
    const len = array.length / size;
    const bpe = array.BYTES_PER_ELEMENT;
    const view = (i: number) => array.subarray(i * len, (i + 1) * len) as A;
    if (ex.share(array.byteLength)) for (let i = 0; i < size; i++) if (i !== group.me && ex.isShared(i)) ex.stage(i * len * bpe, view(i));
    const parts = checkAgreement(
      what,
      group,
      mine,
      await ex.allToAll("rs", (to) => ({ m: mine, d: ex.data(to, view(to), to * len * bpe, () => view(to).slice()) })),
    );
    return combine(ex, op, view(group.me), parts, new (array.constructor as new (n: number) => A)(len));
  });
}

/** Copies the root's `array` into every member's, in place; resolves with it. */
async function broadcast<A extends NumericArray>(array: A, options: RootOptions = {}): Promise<A> {
  const what = "collective.broadcast";
  checkArray(what, array);
  return run(what, options.dims, async (ex, group) => {
    const root = checkRoot(what, options.root ?? 0, group.ranks.length);
    const mine = meta("broadcast", array, undefined, root);
    const isRoot = group.me === root;
    if (ex.share(array.byteLength) && isRoot) ex.stage(0, array);
    const copy = once(() => array.slice());
    const pieces = checkAgreement(what, group, mine, await ex.allToAll("b", (to) => ({ m: mine, d: isRoot ? ex.data(to, array, 0, copy) : undefined })));
    if (!isRoot) await ex.fill(pieces[root].d, array);
    return array;
  });
}

/** Reduces every member's `array` into the root's, in place (the others' are left as they were); resolves with it. */
async function reduce<A extends NumericArray>(array: A, options: RootOptions & ReduceOptions = {}): Promise<A> {
  const what = "collective.reduce";
  checkArray(what, array);
  const op = checkOp(what, options.op ?? "sum");
  return run(what, options.dims, async (ex, group) => {
    const size = group.ranks.length;
    const root = checkRoot(what, options.root ?? 0, size);
    const mine = meta("reduce", array, op, root);
    if (ex.share(array.byteLength) && group.me !== root && ex.isShared(root)) ex.stage(0, array);
    const d = (to: number) => (to === root ? ex.data(to, array, 0, () => array.slice()) : undefined);
    const pieces = checkAgreement(what, group, mine, await ex.allToAll("r", (to) => ({ m: mine, d: d(to) })));
    if (group.me === root) await combine(ex, op, array, pieces, array);
    return array;
  });
}

/** `make()`, called at most once. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** Resolves once every member of the group has called it. */
async function barrier(options: GroupOptions = {}): Promise<void> {
  const what = "collective.barrier";
  await run(what, options.dims, async (ex, group) => {
    const mine: Meta = { c: "barrier", t: "", n: 0 };
    checkAgreement(what, group, mine, await ex.allToAll("x", () => ({ m: mine })));
  });
}

/**
 * How many pieces of array data (and their bytes) the ranks of this process — of this thread, for ranks
 * on worker threads — sent to peers so far, by path: "local" (a rank of the same proc), "sharedArrayBuffer"
 * (another thread), "sharedMemory" (another process seeing the same /dev/shm) or "socket" (frames). A copy.
 */
function pathStatsNow(): PathStats {
  const copy = (p: keyof PathStats) => ({ ...pathStats[p] });
  return { local: copy("local"), sharedArrayBuffer: copy("sharedArrayBuffer"), sharedMemory: copy("sharedMemory"), socket: copy("socket") };
}

/** The collectives, as one namespace: `collective.allReduce(grads, { op: "avg" })`. */
export const collective = { allReduce, allGather, reduceScatter, broadcast, reduce, barrier, pathStats: pathStatsNow } as const;
