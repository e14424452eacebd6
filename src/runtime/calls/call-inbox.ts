// Where the calls that come to a process go: to its actors, in each sender's
// order (call-order.ts), whether they came straight or cast through relays
// (call-sender.ts forwards the rest of a cast); and stops, after the calls
// sent before them.
import type { Encoded } from "../../wire/codec.ts";
import type { Frame } from "../../wire/frame.ts";
import { CallOrder } from "./call-order.ts";
import type { CallSender } from "./call-sender.ts";
import type { Call, Cast, Header, PortRef, Stop } from "../base/messages.ts";
import { ParkedCalls } from "./parked-calls.ts";

/** An actor as the inbox sees it: it takes calls in order, and stops. */
export interface CallTarget {
  /** Queues a call; `first`: the first of the frame's receivers here. */
  deliver(call: Call, rank: number, frame: Frame, first: boolean): void;
  stop(): Promise<void>;
}

/** What the inbox needs of its process. */
export interface CallInboxHost {
  readonly addr: string;
  send(addr: string, header: Header): void;
  sendToPort(ref: PortRef, rank: number, value: unknown, isError: boolean): void;
}

/** Where calls go: the local actors, and what is known of dead ones. */
export interface CallTargets {
  /** The local actor `key` (`${meshId}.${member}`), if it lives here. */
  target(key: string): CallTarget | undefined;
  /** Why member `member` of mesh `meshId` is gone, if it is known to be. */
  deadMember(meshId: string, member: number): Error | undefined;
}

export class CallInbox {
  /** Calls that came before their actor's spawn. */
  readonly parked: ParkedCalls;
  readonly #order: CallOrder;

  /** `calls`: the process's sender, which relays casts. */
  constructor(
    private readonly host: CallInboxHost,
    private readonly targets: CallTargets,
    private readonly calls: CallSender,
  ) {
    this.parked = new ParkedCalls(host.addr, (call, rank, error) => {
      if (call.reply) host.sendToPort(call.reply, rank, error, true);
    });
    this.#order = new CallOrder((origin, q) => host.send(origin, { kind: "cast-ack", seq: q }));
  }

  /** A call that came straight from `peer`. */
  call(call: Call, frame: Frame, peer: string): void {
    if (call.seq === undefined) {
      this.#run(call, frame);
      this.#order.ranUnnumbered(peer);
    } else this.#order.numbered(peer, call.seq, () => this.#run(call, frame));
  }

  /** A cast: the rest goes on to its subtrees, this process's part runs in its turn. */
  cast(cast: Cast, frame: Frame): void {
    const payload: Encoded = { body: frame.payload, attachments: frame.attachments };
    const [[, members, ranks], q] = this.calls.relay(cast, payload);
    const call: Call = {
      kind: "msg",
      mesh: cast.mesh,
      endpoint: cast.endpoint,
      extent: cast.extent,
      reply: cast.reply,
      selection: cast.selection,
      version: cast.version,
      members,
      ranks,
    };
    this.#order.numbered(cast.caller, q, () => this.#run(call, frame));
  }

  /** Stops actors of a mesh after the calls queued for them — and, with `after`, after the sender's calls still on their way. */
  stop(stop: Stop, peer: string): void {
    if (stop.after === undefined) this.#stopActors(stop);
    else this.#order.whenRan(peer, stop.after, () => this.#stopActors(stop));
  }

  /** Runs `then` once the first `count` calls from `peer` ran here (an exit after calls). */
  whenRan(peer: string, count: number, then: () => void): void {
    this.#order.whenRan(peer, count, then);
  }

  /** `peer` is gone: nothing it sent is coming any more. */
  forget(peer: string): void {
    this.#order.forget(peer);
  }

  /** Runs a call on its actors here, in the order of its members. */
  #run(call: Call, frame: Frame): void {
    const { mesh, members, ranks } = call;
    for (let i = 0; i < members.length; i++) {
      const actor = `${mesh}.${members[i]}`;
      const cell = this.targets.target(actor);
      const gone = cell ? undefined : this.targets.deadMember(mesh, members[i]);
      if (cell) cell.deliver(call, ranks[i], frame, i === 0);
      else if (gone) {
        if (call.reply) this.host.sendToPort(call.reply, ranks[i], gone, true);
      } else this.parked.park(actor, call, ranks[i], frame); // it may overtake the actor's spawn
    }
  }

  /** Each member answers with its index once stopped. */
  #stopActors(stop: Stop): void {
    for (const member of stop.members) {
      const cell = this.targets.target(`${stop.mesh}.${member}`);
      const answer = () => this.host.sendToPort(stop.reply, member, null, false);
      if (cell) cell.stop().then(answer);
      else answer();
    }
  }
}
