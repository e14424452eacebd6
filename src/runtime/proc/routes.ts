// Where the frames a Proc receives go: one handler per message kind, registered
// by the subsystem that serves it (calls, ports, buffers, supervision, …). A
// frame of a kind nobody serves is not dropped in silence: a sender waiting on
// a reply port gets an error naming the kind, and anything else is reported on
// stderr, once per kind. Frames received are counted here, by kind, for metrics
// (with FRAY_METRICS=all).
import type { Frame } from "../../wire/frame.ts";
import type { Transport } from "../../wire/transport.ts";
import { addFrame, countFrameIn, frameBytes, frameCounts, framesIn, metricsAll, type FrameCounts } from "../base/counters.ts";
import type { Header, PortRef } from "../base/messages.ts";

export type Kind = Header["kind"];
export type HeaderOf<K extends Kind> = Extract<Header, { readonly kind: K }>;
/** Handles a frame of kind K from `peer` (`bulk`: it came on a bulk connection). */
export type Route<K extends Kind> = (header: HeaderOf<K>, frame: Frame, peer: string, bulk?: Transport) => void;

/** Where a subsystem registers the kinds it serves (a Proc). */
export interface Router {
  /** Makes `handler` the one that frames of `kind` go to, replacing an earlier one (a default). */
  route<K extends Kind>(kind: K, handler: Route<K>): void;
}

/** A kind's handler, and the record its received frames are counted in (FRAY_METRICS=all). */
interface Served {
  readonly handle: Route<Kind>;
  readonly frames: FrameCounts | undefined;
}

export class Routes {
  readonly #served = new Map<Kind, Served>();
  readonly #unserved = new Set<Kind>();

  /** `refuse` answers a sender that waits on `reply` for a frame of a kind nobody serves. */
  constructor(
    private readonly addr: string,
    private readonly refuse: (error: Error, reply: PortRef) => void,
  ) {}

  add<K extends Kind>(kind: K, handler: Route<K>): void {
    this.#served.set(kind, { handle: handler as unknown as Route<Kind>, frames: metricsAll ? frameCounts(framesIn, kind) : undefined });
  }

  /** Counts the frame and hands it to its kind's handler. */
  dispatch(header: Header, frame: Frame, peer: string, bulk: Transport | undefined): void {
    const served = this.#served.get(header.kind);
    if (served) {
      if (served.frames) addFrame(served.frames, frameBytes(frame)); // the record this lookup found: no second one by kind
      return served.handle(header, frame, peer, bulk);
    }
    if (metricsAll) countFrameIn(header.kind, frameBytes(frame));
    const error = new Error(`${this.addr} does not serve '${header.kind}' messages (sent by ${peer}): the runtime there lacks the subsystem for them`);
    const reply = (header as { reply?: PortRef }).reply;
    if (reply) this.refuse(error, reply);
    else if (!this.#unserved.has(header.kind)) {
      this.#unserved.add(header.kind);
      process.stderr.write(`fray: ${error.message}\n`);
    }
  }
}
