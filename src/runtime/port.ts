// Ports: the sending end of a channel, passable to any actor in any process,
// and the PortReceiver that owns the receiving end.
import { registerHandleType } from "../wire/codec.ts";
import type { PortRef } from "./messages.ts";
import { hold, release } from "./keep-alive.ts";
import { Proc } from "./proc.ts";

export class Port<T = unknown> {
  /** @internal */
  constructor(readonly ref: PortRef | null, readonly rank = 0) {}

  /** Sends `value` to the receiver. Throws at once if `value` cannot be sent. */
  send(value: T): void {
    if (this.ref) Proc.current().sendToPort(this.ref, this.rank, value, false, true);
  }

  /** Delivers `error` to the receiver, whose `recv()` rejects with it. */
  exception(error: unknown): void {
    if (this.ref) Proc.current().sendToPort(this.ref, this.rank, error, true);
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

/** Opens a channel in this process: a Port to hand out and its receiver. */
export function openChannel<T>(): [Port<T>, PortReceiver<T>] {
  const proc = Proc.current();
  let id = 0;
  const receiver = new PortReceiver<T>(() => proc.closePort(id));
  id = proc.openPort((rank, ok, value) => receiver.push(ok, value));
  return [new Port<T>({ addr: proc.addr, id }), receiver];
}
