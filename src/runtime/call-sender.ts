// How a process sends calls to the processes of a mesh: straight to each when
// they are at most FRAY_CAST_FANOUT, else cast down a tree (cast-tree.ts) of
// relays, each a process the call goes to anyway, which forwards it to the
// heads of its subtrees. The same object is the relay: it forwards the casts
// that come to this process.
//
// Guarantees, as for calls sent straight:
// - Order: calls from one process to another run in the order they were sent,
//   mixing straight and cast ones. A process this one cast to gets every later
//   call numbered, and runs them in number order (call-order.ts).
// - Exactly once: a cast that went through relays is kept until every process
//   past a relay acknowledges it. When any process of it is lost (a relay among
//   them), it is sent again to the processes that have not acknowledged it and
//   are not lost; they drop the copies of what they ran. Only the lost
//   process's ranks fail (the caller sees SupervisionErrors for them).
// - Reachability: a cast goes through relays only to processes this one is
//   connected to (the others get it straight, which connects them), so every
//   process can answer and acknowledge over its own link, and this process
//   sees any of them close. A relay that loses a process it forwarded to tells
//   the origins of what it forwarded (`cast-lost`): for them it is lost too.
import { encodePlain, type Encoded } from "../wire/codec.ts";
import { config } from "./config.ts";
import { subtrees } from "./cast-tree.ts";
import type { Call, CallFields, Cast, CastPart, Header } from "./messages.ts";

/** The ranks of a call that live in one process. */
export interface CallGroup {
  readonly addr: string;
  readonly members: readonly number[];
  readonly ranks: readonly number[];
  /** The encoded header of a one-way, unnumbered call to this group, made once. */
  oneWay?: Uint8Array;
}

/** What the sender needs of its process. */
export interface CallSenderHost {
  readonly addr: string;
  /** Whether the link to `addr` is connected (not dialing, not lost). */
  connected(addr: string): boolean;
  /** Why `addr` is known to be gone, if it is. */
  deadProc(addr: string): Error | undefined;
  /** Sends an encoded header (a `repeatable` one: the same bytes each time); false when `addr` is known to be gone. */
  sendEncoded(addr: string, kind: Header["k"], header: Uint8Array, payload: Encoded | undefined, repeatable: boolean): boolean;
}

/** A cast that went through relays, until the processes past them acknowledge it. */
interface Kept {
  readonly fields: CallFields;
  readonly payload: Encoded;
  /** The processes it was sent to, each the head of a run… */
  readonly heads: readonly string[];
  /** …and its parts that went through them. */
  readonly parts: readonly CastPart[];
}

export class CallSender {
  /** Calls sent to each process. */
  #sent = new Map<string, number>();
  /** Processes this one cast to: every later call to them is numbered. */
  #numbered = new Set<string>();
  #kept: Kept[] = [];
  /** The number up to which each process acknowledged our calls. */
  #acked = new Map<string, number>();
  /** As a relay: the origins of the casts forwarded to each process. */
  #forwarded = new Map<string, Set<string>>();

  constructor(private readonly host: CallSenderHost) {}

  /** Sends a call to `groups` (live processes, in rank order). */
  send(fields: CallFields, groups: readonly CallGroup[], payload: Encoded): void {
    if (groups.length > 2) {
      const fanout = config.castFanout;
      if (groups.length > fanout) return this.#cast(fields, groups, payload, fanout);
    }
    for (const g of groups) this.#straight(fields, g, payload);
  }

  /** Forwards the rest of a cast that came here; its first part is this process's own. */
  relay(cast: Cast, payload: Encoded): void {
    if (cast.d.length < 2) return;
    for (const run of subtrees(cast.d.slice(1), config.castFanout)) {
      const head = run[0][0];
      if (!this.host.sendEncoded(head, "cast", encodePlain({ ...cast, d: run } satisfies Cast), payload, false)) {
        this.#tellLost(cast.o, head, this.host.deadProc(head)?.message ?? "gone");
        continue;
      }
      let origins = this.#forwarded.get(head);
      if (!origins) this.#forwarded.set(head, (origins = new Set()));
      origins.add(cast.o);
    }
  }

  /** How many calls went to `addr`, if they are numbered (what a later stop or exit must wait for there); else undefined. */
  numberedCalls(addr: string): number | undefined {
    return this.#numbered.has(addr) ? this.#sent.get(addr) : undefined;
  }

  /** `addr` acknowledged our calls up to `q`. */
  acknowledged(addr: string, q: number): void {
    if (q > (this.#acked.get(addr) ?? 0)) this.#acked.set(addr, q);
    while (this.#kept.length && this.#kept[0].parts.every((p) => this.#done(p))) this.#kept.shift();
  }

  /** `addr` is lost: what it may not have passed on goes again to the rest, and origins we forwarded to it learn of it. */
  lost(addr: string, why: string): void {
    this.#sent.delete(addr);
    this.#numbered.delete(addr);
    this.#acked.delete(addr);
    const origins = this.#forwarded.get(addr);
    this.#forwarded.delete(addr);
    for (const origin of origins ?? []) if (origin !== addr) this.#tellLost(origin, addr, why);
    if (!this.#kept.some((k) => k.heads.includes(addr) || k.parts.some((p) => p[0] === addr))) return;
    const fanout = config.castFanout;
    for (const kept of this.#kept) {
      const rest = kept.parts.filter((p) => p[0] !== addr && !this.#done(p));
      for (const run of subtrees(rest, fanout)) this.#sendRun(kept.fields, run, kept.payload);
    }
  }

  #straight(fields: CallFields, g: CallGroup, payload: Encoded): void {
    const { addr } = g;
    const n = this.#sent.get(addr) ?? 0;
    let sent: boolean;
    if (this.#numbered.has(addr)) sent = this.host.sendEncoded(addr, "msg", encodePlain({ k: "msg", ...fields, members: g.members, ranks: g.ranks, q: n + 1 } satisfies Call), payload, false);
    else if (fields.reply) sent = this.host.sendEncoded(addr, "msg", encodePlain({ k: "msg", ...fields, members: g.members, ranks: g.ranks } satisfies Call), payload, false);
    else sent = this.host.sendEncoded(addr, "msg", (g.oneWay ??= encodePlain({ k: "msg", ...fields, members: g.members, ranks: g.ranks } satisfies Call)), payload, true);
    if (sent) this.#sent.set(addr, n + 1);
  }

  #cast(fields: CallFields, groups: readonly CallGroup[], payload: Encoded, fanout: number): void {
    const parts: CastPart[] = [];
    for (const g of groups) {
      if (this.host.connected(g.addr)) parts.push([g.addr, g.members, g.ranks, (this.#sent.get(g.addr) ?? 0) + 1]);
      else this.#straight(fields, g, payload); // connects it, for the next cast
    }
    if (parts.length <= fanout) {
      for (const [addr, members, ranks] of parts) this.#straight(fields, { addr, members, ranks }, payload);
      return;
    }
    const heads: string[] = [];
    const relayed: CastPart[] = [];
    for (const run of subtrees(parts, fanout)) {
      if (!this.#sendRun(fields, run, payload)) continue;
      for (const [addr, , , q] of run) {
        this.#sent.set(addr, q);
        this.#numbered.add(addr);
      }
      if (run.length > 1) heads.push(run[0][0]);
      for (let i = 1; i < run.length; i++) relayed.push(run[i]);
    }
    if (relayed.length) this.#kept.push({ fields, payload, heads, parts: relayed });
  }

  /** Sends a run of a cast to its head, which runs its own part and forwards the rest. */
  #sendRun(fields: CallFields, run: readonly CastPart[], payload: Encoded): boolean {
    return this.host.sendEncoded(run[0][0], "cast", encodePlain({ k: "cast", o: this.host.addr, ...fields, d: run } satisfies Cast), payload, false);
  }

  /** Whether a kept part needs no sending again: acknowledged, or its process is gone. */
  #done(part: CastPart): boolean {
    return (this.#acked.get(part[0]) ?? 0) >= part[3] || this.host.deadProc(part[0]) !== undefined;
  }

  #tellLost(origin: string, addr: string, why: string): void {
    if (origin !== this.host.addr) this.host.sendEncoded(origin, "cast-lost", encodePlain({ k: "cast-lost", addr, why } satisfies Header), undefined, false);
  }
}
