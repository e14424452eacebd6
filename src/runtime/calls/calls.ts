// runtime/calls: calls between processes: sending them straight or down a cast tree
// (call-sender.ts, cast-plan.ts, cast-tree.ts), running them in order exactly once at the receiver
// (call-order.ts, call-inbox.ts), and holding calls that overtake their actor's spawn
// (parked-calls.ts). This file is the subsystem a Proc gets: it serves "msg", "cast", "cast-ack",
// "cast-lost" and "stop" messages, and hands each call to a CallTarget its assembler finds (an
// actor). Uses proc/ only through the narrow interfaces below.
import type { Encoded } from "../../wire/codec.ts";
import { ConnectionError } from "../base/errors.ts";
import type { CallFields, Header } from "../base/messages.ts";
import type { ProcMessaging } from "../proc/messaging.ts";
import type { Router } from "../proc/routes.ts";
import { SubsystemKey } from "../proc/subsystems.ts";
import { CallInbox, type CallTarget, type CallTargets } from "./call-inbox.ts";
import { CallSender, type CallGroup, type CallSenderHost } from "./call-sender.ts";

export type { CallGroup, CallTarget, CallTargets };

/** What the calls subsystem needs of its process. */
export interface CallsHost extends ProcMessaging, Router, CallSenderHost {
  /** Declares `addr` lost (a relay said it cannot reach it). */
  peerLost(addr: string, error: Error): void;
}

export const CALLS = new SubsystemKey<Calls>("call router");

export class Calls {
  readonly #sender: CallSender;
  readonly #inbox: CallInbox;

  constructor(
    private readonly host: CallsHost,
    targets: CallTargets,
  ) {
    this.#sender = new CallSender(host);
    this.#inbox = new CallInbox(host, targets, this.#sender);
    host.route("msg", (header, frame, peer) => this.#inbox.call(header, frame, peer));
    host.route("cast", (header, frame) => this.#inbox.cast(header, frame));
    host.route("cast-ack", (header, _frame, peer) => this.#sender.acknowledged(peer, header.seq));
    host.route("cast-lost", (header, _frame, peer) =>
      host.peerLost(header.addr, new ConnectionError(`${header.addr} cannot be reached from ${peer}, which relays calls to it: ${header.why}`)),
    );
    host.route("stop", (header, _frame, peer) => this.#inbox.stop(header, peer));
    host.onPeerLost((addr, error) => {
      this.#inbox.forget(addr);
      this.#sender.lost(addr, error.message);
    });
  }

  /**
   * Sends a call to the processes of `groups` (in rank order), straight or
   * cast down a tree of relays when they are more than FRAY_CAST_FANOUT; calls
   * from here to each run in the order they were sent (call-sender.ts).
   */
  send(fields: CallFields, groups: readonly CallGroup[], payload: Encoded): void {
    this.#sender.send(fields, groups, payload);
  }

  /** Sends a stop or exit to `addr` after the calls sent there before it, which may be on their way through relays. */
  sendAfterCalls(addr: string, header: Extract<Header, { readonly kind: "stop" | "exit" }>): void {
    const after = this.#sender.numberedCalls(addr);
    this.host.send(addr, after === undefined ? header : { ...header, after });
  }

  /** Runs `then` once the first `count` calls from `peer` ran here (an exit after calls). */
  whenRan(peer: string, count: number, then: () => void): void {
    this.#inbox.whenRan(peer, count, then);
  }

  /** Calls that came for actor `key` before it was spawned, now that it is: they go to it in order. */
  spawned(key: string, target: CallTarget): void {
    for (const [call, rank, frame] of this.#inbox.parked.take(key)) target.deliver(call, rank, frame, true);
  }
}
