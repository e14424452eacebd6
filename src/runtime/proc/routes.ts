// Where the frames a Proc receives go: one handler per message kind, registered
// by the subsystem that serves it (calls, ports, buffers, supervision, …). A
// frame of a kind nobody serves is not dropped in silence: a sender waiting on
// a reply port gets an error naming the kind, and anything else is reported on
// stderr, once per kind.
import type { Frame } from "../../wire/frame.ts";
import type { Transport } from "../../wire/transport.ts";
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

export class Routes {
  readonly #handlers = new Map<Kind, Route<Kind>>();
  readonly #unserved = new Set<Kind>();

  /** `refuse` answers a sender that waits on `reply` for a frame of a kind nobody serves. */
  constructor(
    private readonly addr: string,
    private readonly refuse: (error: Error, reply: PortRef) => void,
  ) {}

  add<K extends Kind>(kind: K, handler: Route<K>): void {
    this.#handlers.set(kind, handler as unknown as Route<Kind>);
  }

  /** Hands the frame to its kind's handler. */
  dispatch(header: Header, frame: Frame, peer: string, bulk: Transport | undefined): void {
    const handler = this.#handlers.get(header.kind);
    if (handler) return handler(header, frame, peer, bulk);
    const error = new Error(`${this.addr} does not serve '${header.kind}' messages (sent by ${peer}): the runtime there lacks the subsystem for them`);
    const reply = (header as { reply?: PortRef }).reply;
    if (reply) this.refuse(error, reply);
    else if (!this.#unserved.has(header.kind)) {
      this.#unserved.add(header.kind);
      process.stderr.write(`fray: ${error.message}\n`);
    }
  }
}
