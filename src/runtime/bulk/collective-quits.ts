// A rank that leaves its collective group without making a call its peers
// wait in: its endpoint threw (before its collective, or instead of it). Its
// process tells every process of the mesh at once ("coll-quit"), so a peer's
// call that waits for the rank rejects now, naming it and its error, instead
// of after FRAY_COLLECTIVE_TIMEOUT_MS.
//
// Each process counts the quits it has heard of per member; the collectives
// (mesh/collectives/exchange.ts) put the sum over a group's members in their
// tags, so after a quit every rank of the group starts its calls afresh (the
// one that threw has made one call fewer than its peers): the group works again.
import type { CollectiveQuit, HeaderSender, PortRef } from "../base/messages.ts";
import { SubsystemKey } from "../proc/subsystems.ts";

/** A rank that left: the mesh, its version, the member, the call it threw in (if it had a reply port), the error. */
export interface Quit {
  readonly mesh: string;
  readonly version: number;
  readonly member: number;
  readonly call?: string;
  readonly error: string;
  /** How many messages this thread's actors had begun when it was heard of. */
  readonly heardAt: number;
}

export const COLLECTIVE_QUITS = new SubsystemKey<CollectiveQuits>("collective quits");

/** What the quits need of their process. */
export interface QuitsHost extends HeaderSender {
  readonly addr: string;
  route(kind: "coll-quit", handler: (header: CollectiveQuit) => void): void;
  /** The addresses of mesh `mesh`'s members, asked of its owner if not known here. */
  meshAddrs(mesh: string, owner: string): Promise<readonly string[]>;
  /** How many messages this thread's actors have begun. */
  messagesBegun(): number;
}

export class CollectiveQuits {
  readonly #host: QuitsHost;
  /** `${mesh}@${version}` → member → quits heard of. */
  #counts = new Map<string, Map<number, number>>();
  /** Each member's latest quit, for calls that start after it was heard of (a slow rank's, in the same message). */
  #latest = new Map<string, Map<number, Quit>>();
  /** Quits of this process's ranks still being sent, by mesh: its next collective pieces go after them. */
  #sending = new Map<string, Promise<void>>();
  #listeners = new Set<(quit: Quit) => void>();

  constructor(host: QuitsHost) {
    this.#host = host;
    host.route("coll-quit", (h) => this.#heard({ mesh: h.mesh, version: h.version ?? 0, member: h.member, call: h.call, error: h.error }));
  }

  /**
   * A rank of this process (member `member` of mesh `mesh` at `version`, owned at `owner`) threw in an endpoint
   * called on `size` ranks: every process of the mesh hears of it (this one at once).
   */
  rankThrew(quit: Omit<Quit, "heardAt">, owner: string, size: number): void {
    if (size < 2) return; // no peers to wait for it
    this.#heard(quit);
    const key = `${quit.mesh}@${quit.version}`;
    const previous = this.#sending.get(key) ?? Promise.resolve();
    const sent = previous
      .then(() => this.#host.meshAddrs(quit.mesh, owner))
      .then(
        (addrs) => {
          const header: CollectiveQuit = { kind: "coll-quit", mesh: quit.mesh, version: quit.version, member: quit.member, call: quit.call, error: quit.error };
          for (const addr of new Set(addrs)) if (addr !== this.#host.addr) this.#host.send(addr, header);
        },
        () => {}, // the mesh is gone (stopped, its owner dead): nobody waits for the rank
      );
    this.#sending.set(key, sent);
    void sent.then(() => {
      if (this.#sending.get(key) === sent) this.#sending.delete(key);
    });
  }

  /** Resolves once this process's quits on `mesh` have been sent (a rank's next pieces must not overtake them). */
  sent(mesh: string, version: number): Promise<void> | undefined {
    return this.#sending.get(`${mesh}@${version}`);
  }

  /** How many quits of `members` of `mesh` at `version` this process has heard of: a group's generation. */
  generation(mesh: string, version: number, members: readonly number[]): number {
    const counts = this.#counts.get(`${mesh}@${version}`);
    if (!counts) return 0;
    let sum = 0;
    for (const m of members) sum += counts.get(m) ?? 0;
    return sum;
  }

  /**
   * The quit of one of `members` made in the message a call now starting runs for (`call`: the id its ranks share;
   * without one, a message begun, `begun`, before the quit was heard of), if any: that call cannot complete.
   */
  quitDuring(mesh: string, version: number, members: readonly number[], call: string | undefined, begun: number): Quit | undefined {
    const latest = this.#latest.get(`${mesh}@${version}`);
    for (const m of latest ? members : []) {
      const q = latest!.get(m);
      if (q && (call !== undefined && q.call !== undefined ? q.call === call : begun < q.heardAt)) return q;
    }
    return undefined;
  }

  /** Calls `listener` with every quit heard of from now on; returns what stops it. */
  listen(listener: (quit: Quit) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Forgets the quits of mesh `mesh` (no rank of it is left here). */
  forget(mesh: string): void {
    for (const map of [this.#counts, this.#latest]) for (const key of [...map.keys()]) if (key.startsWith(`${mesh}@`)) map.delete(key);
  }

  #heard(q: Omit<Quit, "heardAt">): void {
    const quit: Quit = { ...q, heardAt: this.#host.messagesBegun() };
    const key = `${quit.mesh}@${quit.version}`;
    let counts = this.#counts.get(key);
    if (!counts) this.#counts.set(key, (counts = new Map()));
    counts.set(quit.member, (counts.get(quit.member) ?? 0) + 1);
    let latest = this.#latest.get(key);
    if (!latest) this.#latest.set(key, (latest = new Map()));
    latest.set(quit.member, quit);
    for (const listener of this.#listeners) listener(quit);
  }
}

/** What `askAddrs` needs of a Proc. */
export interface AddrsAsker extends HeaderSender {
  readonly addr: string;
  openPort(handler: (rank: number, ok: boolean, value: unknown) => void): number;
  closePort(id: number): void;
  onPeerLost(handler: (addr: string, error: Error) => void): () => void;
  lostPeer(addr: string): Error | undefined;
}

/** Asks the owner at `owner` (through `ask`, answering on a port of `proc`) for a mesh's member addresses; rejects if it is lost. */
export function askAddrs(proc: AddrsAsker, owner: string, ask: (reply: PortRef) => void): Promise<readonly string[]> {
  return new Promise((resolve, reject) => {
    const gone = proc.lostPeer(owner);
    if (gone) return reject(gone);
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
      reject(error);
    });
    ask({ addr: proc.addr, id: port });
  });
}
