// runtime/calls: calls between processes: sending them straight or down a cast tree
// (this file, cast-plan.ts, cast-tree.ts), running them in order exactly once at the receiver
// (call-order.ts, call-inbox.ts), and holding calls that overtake their actor's spawn
// (parked-calls.ts). Hands each call to its actors/ cell; supervision/ says who is dead.
//
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
import type { Encoded } from "../../wire/codec.ts";
import { encodeHeader } from "../base/header-codec.ts";
import { config } from "../base/config.ts";
import { expandRunLengths, RelayPlans, runLengths, runsOf, type Run } from "./cast-plan.ts";
import type { Call, CallFields, Cast, CastPart, Header } from "../base/messages.ts";

/** The ranks of a call that live in one process. */
export interface CallGroup {
  readonly addr: string;
  readonly members: readonly number[];
  readonly ranks: readonly number[];
  /** The encoded header of a one-way, unnumbered call to this group, made once. */
  oneWay?: Uint8Array;
  /** The same for a call that wants a reply (at a port of `addr`): the port's id goes beside it, each call its own. */
  replying?: { readonly addr: string; readonly header: Uint8Array };
  /** Made for one call (the live ranks of a group with dead ones): its header goes in full, not kept by the link for calls to come. */
  readonly transient?: boolean;
}

/** What the sender needs of its process. */
export interface CallSenderHost {
  readonly addr: string;
  /** Whether the link to `addr` is connected (not dialing, not lost). */
  connected(addr: string): boolean;
  /** Why `addr` is known to be gone, if it is. */
  lostPeer(addr: string): Error | undefined;
  /**
   * Sends an encoded header (a `repeatable` one: the same bytes each time, with `variable`, a reply port id, beside them);
   * false when `addr` is known to be gone.
   */
  sendEncoded(addr: string, kind: Header["kind"], header: Uint8Array, payload: Encoded | undefined, repeatable: boolean, variable?: number): boolean;
}

/** The tree of a mesh's processes, made once for a set of groups (the endpoint keeps its set while nothing moves). */
interface Plan {
  readonly fanout: number;
  readonly runs: readonly Run[];
}

/** A cast that went through relays, until the processes past them acknowledge it. */
interface Kept {
  readonly fields: CallFields;
  readonly payload: Encoded;
  readonly runs: readonly Run[];
  /** The call's number at each part of each run; null: the run was not sent. */
  readonly qs: readonly (readonly number[] | null)[];
  /** Where the last look for parts that need sending again stopped: run, and part in it (heads, part 0, got it straight). */
  run: number;
  part: number;
}

export class CallSender {
  /** Calls sent to each process. */
  #sent = new Map<string, number>();
  /** Processes this one cast to: every later call to them is numbered. */
  #numbered = new Set<string>();
  #plans = new WeakMap<readonly CallGroup[], Plan>();
  #trees = 0;
  #kept: Kept[] = [];
  /** The number up to which each process acknowledged our calls. */
  #acked = new Map<string, number>();
  /** As a relay: the trees it heads runs of, and the origins of the casts forwarded to each process. */
  #relayPlans = new RelayPlans();
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

  /** Forwards the rest of a cast that came here; returns this process's own part and its number. */
  relay(cast: Cast, payload: Encoded): [own: CastPart, q: number] {
    const { own, runs } = this.#relayPlans.plan(cast.caller, cast.treeId ?? undefined, cast.tree, config.castFanout);
    const qs = expandRunLengths(cast.seqs);
    const fields = fieldsOf(cast);
    let at = 1;
    for (const run of runs) {
      const sent = this.#sendRun(cast.caller, fields, run, qs.slice(at, at + run.parts.length), payload);
      at += run.parts.length;
      if (!sent) {
        this.#tellLost(cast.caller, run.head, this.host.lostPeer(run.head)?.message ?? "gone");
        continue;
      }
      let origins = this.#forwarded.get(run.head);
      if (!origins) this.#forwarded.set(run.head, (origins = new Set()));
      origins.add(cast.caller);
    }
    return [own, qs[0]];
  }

  /** How many calls went to `addr`, if they are numbered (what a later stop or exit must wait for there); else undefined. */
  numberedCalls(addr: string): number | undefined {
    return this.#numbered.has(addr) ? this.#sent.get(addr) : undefined;
  }

  /** `addr` acknowledged our calls up to `q`. */
  acknowledged(addr: string, q: number): void {
    if (q > (this.#acked.get(addr) ?? 0)) this.#acked.set(addr, q);
    while (this.#kept.length && this.#settled(this.#kept[0])) this.#kept.shift();
  }

  /** `addr` is lost: what it may not have passed on goes again to the rest, and origins we forwarded to it learn of it. */
  lost(addr: string, why: string): void {
    this.#sent.delete(addr);
    this.#numbered.delete(addr);
    this.#acked.delete(addr);
    this.#relayPlans.forget(addr);
    const origins = this.#forwarded.get(addr);
    this.#forwarded.delete(addr);
    for (const origin of origins ?? []) if (origin !== addr) this.#tellLost(origin, addr, why);
    if (!this.#kept.some((k) => k.runs.some((r) => r.parts.some((p) => p[0] === addr)))) return;
    const fanout = config.castFanout;
    for (const kept of this.#kept) {
      const parts: CastPart[] = [];
      const qs: number[] = [];
      kept.runs.forEach((run, i) => {
        const numbers = kept.qs[i];
        if (numbers)
          for (let j = 1; j < run.parts.length; j++)
            if (run.parts[j][0] !== addr && !this.#done(run.parts[j], numbers[j])) {
              parts.push(run.parts[j]);
              qs.push(numbers[j]);
            }
      });
      let at = 0;
      for (const run of runsOf(parts, fanout)) {
        this.#sendRun(this.host.addr, kept.fields, run, qs.slice(at, at + run.parts.length), kept.payload);
        at += run.parts.length;
      }
    }
  }

  #straight(fields: CallFields, g: CallGroup, payload: Encoded): void {
    const { addr } = g;
    const n = this.#sent.get(addr) ?? 0;
    const { reply } = fields;
    let sent: boolean;
    if (this.#numbered.has(addr))
      sent = this.host.sendEncoded(
        addr,
        "msg",
        encodeHeader({ kind: "msg", ...fields, members: g.members, ranks: g.ranks, seq: n + 1 } satisfies Call),
        payload,
        false,
      );
    else if (g.transient || (reply && reply.id >>> 0 !== reply.id))
      sent = this.host.sendEncoded(addr, "msg", encodeHeader({ kind: "msg", ...fields, members: g.members, ranks: g.ranks } satisfies Call), payload, false);
    else if (reply) sent = this.host.sendEncoded(addr, "msg", replyingHeader(fields, g), payload, true, reply.id);
    else
      sent = this.host.sendEncoded(
        addr,
        "msg",
        (g.oneWay ??= encodeHeader({ kind: "msg", ...fields, members: g.members, ranks: g.ranks } satisfies Call)),
        payload,
        true,
      );
    if (sent) this.#sent.set(addr, n + 1);
  }

  #cast(fields: CallFields, groups: readonly CallGroup[], payload: Encoded, fanout: number): void {
    let plan = this.#plans.get(groups);
    if (!plan || plan.fanout !== fanout) {
      const parts: CastPart[] = [];
      for (const g of groups) {
        if (this.host.connected(g.addr)) parts.push([g.addr, g.members, g.ranks]);
        else this.#straight(fields, g, payload); // connects it, for the next cast
      }
      if (parts.length <= fanout) {
        for (const [addr, members, ranks] of parts) this.#straight(fields, { addr, members, ranks, transient: true }, payload);
        return;
      }
      // Kept only when every process is connected; a lost one makes the endpoint pass other groups.
      const whole = parts.length === groups.length;
      plan = { fanout, runs: runsOf(parts, fanout, whole ? String(this.#trees++) : undefined) };
      if (whole) this.#plans.set(groups, plan);
    }
    const qs = plan.runs.map((run) => {
      const numbers = run.parts.map(([addr]) => (this.#sent.get(addr) ?? 0) + 1);
      if (!this.#sendRun(this.host.addr, fields, run, numbers, payload)) return null;
      run.parts.forEach(([addr], j) => {
        this.#sent.set(addr, numbers[j]);
        this.#numbered.add(addr);
      });
      return numbers;
    });
    if (plan.runs.some((run) => run.parts.length > 1)) this.#kept.push({ fields, payload, runs: plan.runs, qs, run: 0, part: 1 });
  }

  /** Sends a run of a cast to its head, which runs its own part and forwards the rest. */
  #sendRun(origin: string, fields: CallFields, run: Run, qs: readonly number[], payload: Encoded): boolean {
    const cast: Cast = { kind: "cast", caller: origin, ...fields, tree: run.t, seqs: runLengths(qs), ...(run.tid === undefined ? {} : { treeId: run.tid }) };
    return this.host.sendEncoded(run.head, "cast", encodeHeader(cast), payload, false);
  }

  /** Whether every part of a kept cast past a relay needs no sending again (resuming where the last look stopped). */
  #settled(kept: Kept): boolean {
    for (; kept.run < kept.runs.length; kept.run++, kept.part = 1) {
      const { parts } = kept.runs[kept.run];
      const numbers = kept.qs[kept.run];
      if (!numbers) continue;
      for (; kept.part < parts.length; kept.part++) if (!this.#done(parts[kept.part], numbers[kept.part])) return false;
    }
    return true;
  }

  /** Whether a part needs no sending again: it acknowledged call `q`, or its process is gone. */
  #done(part: CastPart, q: number): boolean {
    return (this.#acked.get(part[0]) ?? 0) >= q || this.host.lostPeer(part[0]) !== undefined;
  }

  #tellLost(origin: string, addr: string, why: string): void {
    if (origin !== this.host.addr)
      this.host.sendEncoded(origin, "cast-lost", encodeHeader({ kind: "cast-lost", addr, why } satisfies Header), undefined, false);
  }
}

/**
 * The header of a call to `g` that wants a reply, made once per group and reply address: the link keeps it, and each call
 * sends its reply port's id beside it (header-codec.ts: withReplyId puts it back).
 */
function replyingHeader(fields: CallFields, g: CallGroup): Uint8Array {
  const addr = fields.reply!.addr;
  if (g.replying?.addr === addr) return g.replying.header;
  const header = encodeHeader({ kind: "msg", ...fields, reply: { addr, id: 0 }, members: g.members, ranks: g.ranks } satisfies Call);
  g.replying = { addr, header };
  return header;
}

/** The fields of a call, from a cast that came. */
function fieldsOf(cast: Cast): CallFields {
  const { mesh, endpoint, extent, reply, selection, version } = cast;
  return { mesh, endpoint, extent, ...(reply ? { reply } : {}), ...(selection ? { selection } : {}), ...(version ? { version } : {}) };
}
