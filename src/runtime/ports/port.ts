// runtime/ports: where replies and channel values go: Port and PortReceiver (this
// file), the receiving inbox (port-inbox.ts) and the batching outbox (port-outbox.ts).
// Uses only runtime's base and code/ (to revive error classes).
//
// Ports: the sending end of a channel, passable to any actor in any process,
// and the PortReceiver that owns the receiving end.
//
// A Port is given its sender (this process's Proc) instead of importing it, as
// Monarch's Port(port_ref, instance, rank) is: the runtime registers the
// sender for ports revived from the wire when it loads (proc.ts).
import { registerHandleType, type Encoded } from "../../wire/codec.ts";
import type { HeaderSender, PortRef } from "../base/messages.ts";
import { hold, release } from "../base/keep-alive.ts";
import type { PortHandler } from "./port-inbox.ts";

/** What sends a port's values: this process's Proc. */
export interface PortSender {
  /** Sends a value (or error) to `ref` as `rank`; `strict`: throw if it cannot be sent instead of sending the error. */
  sendToPort(ref: PortRef, rank: number, value: unknown, isError: boolean, strict?: boolean): void;
}

/** A PortSender that also owns ports: what opens a channel. */
export interface PortOwner extends PortSender {
  readonly addr: string;
  openPort(handler: PortHandler): number;
  closePort(id: number): void;
}

let wireSender: (() => PortSender) | null = null;

/** Sends a value already encoded (by a caller that bounds its size) to port `ref`, as from rank `rank`. */
export function sendEncodedToPort(proc: HeaderSender, ref: PortRef, rank: number, value: Encoded): void {
  proc.send(ref.addr, { kind: "port", id: ref.id, rank }, value);
}

/** Registers how ports revived from the wire find this process's sender (resolved when they send). */
export function setWirePortSender(sender: () => PortSender): void {
  wireSender = sender;
}

function senderForWire(): PortSender {
  if (!wireSender) throw new Error("this process has no Proc to send through (import the fray runtime before decoding a Port)");
  return wireSender();
}

export class Port<T = unknown> {
  readonly #sender: PortSender | null;

  /** @internal `sender` null: the sender registered for ports revived from the wire. */
  constructor(
    readonly ref: PortRef | null,
    readonly rank = 0,
    sender: PortSender | null = null,
  ) {
    this.#sender = sender;
  }

  /** Sends `value` to the receiver. Throws at once if `value` cannot be sent. */
  send(value: T): void {
    if (this.ref) this.#send().sendToPort(this.ref, this.rank, value, false, true);
  }

  /** Delivers `error` to the receiver, whose `recv()` rejects with it. */
  exception(error: unknown): void {
    if (this.ref) this.#send().sendToPort(this.ref, this.rank, error, true);
  }

  #send(): PortSender {
    return this.#sender ?? senderForWire();
  }
}

registerHandleType<Port>({
  type: "port",
  Class: Port,
  toWire: (p) => (p.ref ? [p.ref.addr, p.ref.id, p.rank] : null),
  fromWire: (d) => {
    if (d === null) return new Port(null);
    const [addr, id, rank] = d as [string, number, number];
    return new Port({ addr, id }, rank);
  },
});

type Waiter<T> = { resolve: (v: T) => void; reject: (e: unknown) => void };

/** The receiving end of a channel: `recv()` values in arrival order, or `for await`. */
export class PortReceiver<T = unknown> implements AsyncIterable<T> {
  #values: Array<{ ok: boolean; value: unknown }> = [];
  #waiters: Waiter<T>[] = [];
  #closed = false;

  /** @internal */
  constructor(private readonly closeFn: () => void) {}

  /** @internal */
  push(ok: boolean, value: unknown): void {
    const waiter = this.#waiters.shift();
    if (!waiter) {
      this.#values.push({ ok, value });
      return;
    }
    release();
    if (ok) waiter.resolve(value as T);
    else waiter.reject(value);
  }

  /** The next value; rejects if the sender called `exception()`. */
  recv(): Promise<T> {
    const next = this.#values.shift();
    if (next) return next.ok ? Promise.resolve(next.value as T) : Promise.reject(next.value);
    if (this.#closed) return Promise.reject(new Error("PortReceiver is closed"));
    hold();
    return new Promise<T>((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** Stops receiving; pending `recv()` calls reject. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.closeFn();
    for (const w of this.#waiters.splice(0)) {
      release();
      w.reject(new Error("PortReceiver is closed"));
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    while (!this.#closed || this.#values.length) yield await this.recv();
  }
}

/** Opens a channel owned by `proc` (this process's): a Port to hand out and its receiver. */
export function openChannel<T>(proc: PortOwner): [Port<T>, PortReceiver<T>] {
  let id = 0;
  const receiver = new PortReceiver<T>(() => proc.closePort(id));
  id = proc.openPort((rank, ok, value) => receiver.push(ok, value));
  return [new Port<T>({ addr: proc.addr, id }, 0, proc), receiver];
}
