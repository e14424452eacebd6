// How a collective call's pieces travel among the ranks of its group
// (collective-group.ts): straight from Proc to Proc (a "coll" frame, or a
// hand-over within one process), never through an actor's mailbox: the actor
// is busy awaiting the collective. A group's first call learns, for each pair
// of ranks, whether large arrays can go through shared memory instead
// (runtime/bulk/collective-outbox.ts).
import { decode, encode } from "../../wire/codec.ts";
import { config, settingNow } from "../settings.ts";
import { SupervisionError } from "../../runtime/face/supervision.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import {
  COLLECTIVES,
  hearOutboxes,
  hostIdentity,
  isSabRef,
  isShmRef,
  canReadOutboxesOf,
  COLLECTIVE_QUITS,
  OpenedOutboxes,
  Outbox,
  pathTo,
  sabView,
  sendCollectivePiece,
  type HostIdentity,
  type Quit,
  type ShmRef,
} from "../../runtime/face/collectives.ts";
import { pathStats, type PiecePath } from "../../runtime/face/buffers.ts";
import type { Group } from "./collective-group.ts";
import { boundOutboxes, startAfresh, stateOf, tagPrefix, type GroupState } from "./group-state.ts";
import type { NumericArray } from "./reduce-op.ts";

/** A rank of this process hands a piece to another: no copy, no encoding. */
class LocalPiece {
  constructor(readonly value: unknown) {}
}

/** A piece (or its data) naming another thread's SharedArrayBuffer outbox, with a view of the memory there in its place. */
function inPlace(value: unknown): unknown {
  if (isSabRef(value)) return sabView(value);
  const d = (value as { d?: unknown } | null)?.d;
  if (!isSabRef(d)) return value;
  const view = sabView(d);
  return view instanceof Promise ? view.then((v) => ({ ...(value as object), d: v })) : { ...(value as object), d: view };
}

/**
 * One collective call's exchange: `send` a piece to a group member, `recv` one
 * from a member. Every `recv` rejects with SupervisionError when a member's
 * process is lost, and with a timeout error after FRAY_COLLECTIVE_TIMEOUT_MS.
 * A rank's calls on one group run one at a time, in call order.
 */
export class Exchange {
  readonly #proc = currentProc();
  readonly #prefix: string;
  readonly #failed: Promise<never>;
  readonly #state: GroupState;
  readonly #seq: number;
  readonly #ended: () => void;
  #fail!: (error: Error) => void;
  /** What failed this call from outside (a peer, a timeout), as opposed to an error of its own. */
  #failure: Error | undefined;
  #unwatch: () => void = () => {};
  #timer: NodeJS.Timeout | undefined;
  #outbox: Outbox | null = null;
  #outboxBytes = 0;
  #opened: OpenedOutboxes | null = null;

  /**
   * Starts this rank's next call on `group` once its previous one has ended. Rejects at once when a member
   * quit the message this call runs for (its endpoint threw): it will never join.
   */
  static async open(group: Group, what: string): Promise<Exchange> {
    const state = stateOf(group);
    const previous = state.tail;
    let ended!: () => void;
    state.tail = new Promise<void>((resolve) => (ended = resolve));
    await previous;
    const proc = currentProc();
    const quits = proc.get(COLLECTIVE_QUITS);
    await quits.sent(group.meshId, group.version); // this rank's own quit goes before its next pieces
    const quit = quits.quitDuring(group.meshId, group.version, group.members, group.call, group.begun);
    if (quit) {
      ended();
      throw quitError(what, group, quit);
    }
    listenForQuits(proc);
    const generation = quits.generation(group.meshId, group.version, group.members);
    if (generation !== state.generation) startAfresh(state, group, generation);
    state.busy = true;
    const ex = new Exchange(group, what, state, ended);
    if (ex.#seq === 0) {
      try {
        await ex.#learnPaths();
      } catch (err) {
        ex.close(true, err);
        throw err;
      }
    }
    return ex;
  }

  private constructor(
    readonly group: Group,
    readonly what: string,
    state: GroupState,
    ended: () => void,
  ) {
    this.#state = state;
    this.#ended = ended;
    this.#seq = state.seq++;
    this.#prefix = `${tagPrefix(group, state.generation)}${this.#seq}`;
    // The previous call's pieces nobody took (a peer's failure notice that came after it ended; a failed call's are dropped).
    if (this.#seq > 0 && state.lastOk) this.#proc.get(COLLECTIVES).forget(`${tagPrefix(group, state.generation)}${this.#seq - 1}.`, `>${group.me}`);
    this.#failed = new Promise<never>((_, reject) => (this.#fail = (error) => ((this.#failure ??= error), reject(error))));
    this.#failed.catch(() => {});
    live.add(this);
    // A peer whose own part of this call failed says so (close()): this call cannot complete either.
    for (let i = 0; i < group.ranks.length; i++)
      if (i !== group.me)
        this.recv(i, "fail").then(
          (error) => this.#fail(new Error(`${what} cannot complete: ${group.describe(i)} failed: ${String(error)}`)),
          () => {},
        );
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
    else sendCollectivePiece(this.#proc, addr, tag, encode(value, this.what));
  }

  recv(from: number, round: string): Promise<unknown> {
    const tag = this.#tag(round, from, this.group.me);
    const got = new Promise<unknown>((resolve, reject) => {
      this.#proc.get(COLLECTIVES).take(tag, (piece) => {
        if (piece instanceof LocalPiece) return resolve(piece.value);
        const { payload, attachments } = piece as { payload: Uint8Array; attachments: readonly Uint8Array[] };
        try {
          resolve(inPlace(decode(payload, attachments)));
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

  /** The group's first call: every rank tells every peer in another proc where it runs (a few bytes), so each picks its path to each. */
  async #learnPaths(): Promise<void> {
    const { addrs, me } = this.group;
    const remote = (i: number) => i !== me && addrs[i] !== this.#proc.addr;
    const mine = hostIdentity();
    if (mine.host !== null) hearOutboxes();
    for (let i = 0; i < addrs.length; i++) if (remote(i)) this.send(i, "h", mine);
    const theirs = await Promise.all(addrs.map((_, i) => (remote(i) ? (this.recv(i, "h") as Promise<HostIdentity>) : undefined)));
    const paths = theirs.map((peer) => (peer ? pathTo(peer) : "local"));
    // Shared memory between two processes only if each can open the other's files (not so for another user's
    // process, say): both say whether they can, and both fall back to frames unless both can.
    const shm = paths.flatMap((p, i) => (p === "sharedMemory" ? [i] : []));
    for (const i of shm) this.send(i, "h2", canReadOutboxesOf(theirs[i]!.pid));
    const answers = await Promise.all(shm.map((i) => this.recv(i, "h2")));
    shm.forEach((i, k) => {
      if (!answers[k] || !canReadOutboxesOf(theirs[i]!.pid)) paths[i] = "socket";
    });
    this.#state.paths = paths;
  }

  /** How pieces travel to member `i`. */
  path(i: number): PiecePath {
    return this.#state.paths?.[i] ?? (this.group.addrs[i] === this.#proc.addr ? "local" : "socket");
  }

  /**
   * Readies this call's outbox for up to `bytes` bytes when the array is large enough for shared memory
   * (FRAY_COLLECTIVE_SHARED_MIN_BYTES) and some peer is on it; says whether it did. Every rank of the
   * group decides the same for every call whose arrays agree.
   */
  share(bytes: number): boolean {
    if (bytes < config.collectiveSharedMinBytes || this.#state.refused !== null) return false;
    const paths = this.group.addrs.map((_, i) => this.path(i));
    const file = paths.includes("sharedMemory");
    const sab = paths.includes("sharedArrayBuffer");
    if (!file && !sab) return false;
    const { outboxes } = this.#state;
    const parity = this.#seq % 2;
    let outbox = outboxes[parity];
    // After a failed call, a peer may still be reading call k − 2's outbox: this call takes a fresh one.
    if (outbox && (!this.#state.lastOk || outbox.file !== file || outbox.sab !== sab)) {
      outbox.close();
      outbox = null;
    }
    if (!outbox) {
      outboxes[parity] = outbox = new Outbox(file, sab, this.group.key);
      boundOutboxes();
    }
    this.#outbox = outbox;
    this.#outboxBytes = bytes;
    return true;
  }

  /** Whether member `i`'s pieces of this call go through the outbox. */
  isShared(i: number): boolean {
    const path = this.path(i);
    return this.#outbox !== null && (path === "sharedMemory" || path === "sharedArrayBuffer");
  }

  /** Copies `view` to byte `offset` of this call's outbox, if `share` readied one (whose memory is reserved now: only ranks that stage pay for it). */
  stage(offset: number, view: NumericArray): void {
    if (!this.#outbox) return;
    try {
      this.#outbox.reserve(this.#outboxBytes);
      this.#outbox.put(offset, view);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOSPC" && code !== "EACCES" && code !== "EPERM" && code !== "EDQUOT") throw err;
      // Shared memory refused (a full /dev/shm, one this user cannot write): this rank's pieces go in frames,
      // which its peers take as well as references (pathStats counts them as "socket").
      this.#state.refused = (err as Error).message;
      this.#outbox.close();
      this.#state.outboxes[this.#seq % 2] = null;
      this.#outbox = null;
    }
  }

  /**
   * What member `to` is sent for `view`: where it is in the outbox (staged at byte `offset`), when `to`
   * is on shared memory and this call uses it; else `view` itself, or `copy()` of it when it is the user's
   * array (which may change before a frame is written or a rank of this proc takes it).
   */
  data(to: number, view: NumericArray, offset: number, copy?: () => NumericArray): unknown {
    let path = this.path(to);
    if (this.#outbox === null && path !== "local") path = "socket";
    const stats = pathStats[path];
    stats.pieces++;
    stats.bytes += view.byteLength;
    if (path === "sharedMemory" || path === "sharedArrayBuffer") return this.#outbox!.ref(path, offset, view.byteLength, view);
    return copy ? copy() : view;
  }

  /** Copies a member's data `d` (all of it) into `into`. */
  async fill(d: unknown, into: NumericArray): Promise<void> {
    if (!isShmRef(d)) return void into.set(d as never);
    // A file that is gone belongs to a process that died after sending: its loss, being reported, fails the call.
    if (!this.#read(d, 0, into, true)) await this.#failed;
  }

  /**
   * Elements [start, start + scratch.length) of a member's data `d`: a view of them, or `scratch` filled with
   * them from shared memory (null: the peer's file is gone, and `failed()` will say why).
   */
  part<A extends NumericArray>(d: unknown, start: number, scratch: A): A | null {
    if (!isShmRef(d)) return (d as A).subarray(start, start + scratch.length) as A;
    return this.#read(d, start * scratch.BYTES_PER_ELEMENT, scratch, false) ? scratch : null;
  }

  /** Rejects when this call fails (for a caller that cannot go on). */
  failed(): Promise<never> {
    return this.#failed;
  }

  #read(d: ShmRef, from: number, into: NumericArray, whole: boolean): boolean {
    this.#opened ??= new OpenedOutboxes();
    return this.#opened.read(d, from, new Uint8Array(into.buffer, into.byteOffset, into.byteLength), whole);
  }

  /** Fails this call if member `quit.member` of its group quit (collective-quits.ts): it will not join, and its peers start afresh. */
  quitHeard(quit: Quit): void {
    const { group } = this;
    if (quit.mesh !== group.meshId || quit.version !== group.version) return;
    const i = group.members.indexOf(quit.member);
    if (i >= 0 && i !== group.me) this.#fail(quitError(this.what, group, quit));
  }

  /**
   * Stops watching. After a failure, the pieces this rank will never take are dropped; a failure of this
   * rank's own (`error`, not one every rank sees) is told to its peers, whose calls then fail at once.
   */
  close(failed: boolean, error?: unknown): void {
    clearTimeout(this.#timer);
    this.#unwatch();
    live.delete(this);
    this.#opened?.close();
    this.#state.lastOk = !failed;
    this.#state.busy = false;
    this.#ended();
    const inbox = this.#proc.get(COLLECTIVES);
    if (failed && error !== undefined && error !== this.#failure) {
      const said = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      for (let i = 0; i < this.group.ranks.length; i++) if (i !== this.group.me) this.send(i, "fail", said);
    }
    if (failed) inbox.abandon(`${this.#prefix}.`, `>${this.group.me}`);
    else inbox.forget(`${this.#prefix}.fail.`, `>${this.group.me}`);
  }
}

/** The exchanges running in this thread, which a quit may fail. */
const live = new Set<Exchange>();
const listening = new WeakSet<object>();

function listenForQuits(proc: ReturnType<typeof currentProc>): void {
  if (listening.has(proc)) return;
  listening.add(proc);
  proc.get(COLLECTIVE_QUITS).listen((quit) => {
    for (const ex of live) ex.quitHeard(quit);
  });
}

function quitError(what: string, group: Group, quit: Quit): Error {
  const i = group.members.indexOf(quit.member);
  return new Error(`${what} cannot complete: ${group.describe(i)} left the group: its endpoint threw ${quit.error}`);
}
