// A Port is given its sender instead of importing the process's Proc (which
// kept proc → actor-cell → port → proc an import cycle): ports the runtime
// makes carry their Proc, ports revived from the wire use the sender the
// runtime registered. This file loads port.ts without the rest of the runtime.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decode, encode } from "../../src/wire/codec.ts";
import type { PortRef } from "../../src/runtime/base/messages.ts";
import { Port, setWirePortSender, type PortSender } from "../../src/runtime/ports/port.ts";

type Sent = [ref: PortRef, rank: number, value: unknown, isError: boolean, strict: boolean | undefined];

function recordingSender(): PortSender & { sent: Sent[] } {
  const sent: Sent[] = [];
  return { sent, sendToPort: (ref, rank, value, isError, strict) => void sent.push([ref, rank, value, isError, strict]) };
}

describe("Port sender", () => {
  it("a Port sends values and errors through the sender it was constructed with", () => {
    const sender = recordingSender();
    const port = new Port<number>({ addr: "unix:/nowhere.sock", id: 7 }, 3, sender);
    const failure = new Error("boom");
    port.send(42);
    port.exception(failure);
    assert.deepEqual(sender.sent, [
      [{ addr: "unix:/nowhere.sock", id: 7 }, 3, 42, false, true],
      [{ addr: "unix:/nowhere.sock", id: 7 }, 3, failure, true, undefined],
    ]);
  });

  it("a Port revived from the wire sends through the sender registered for the process", () => {
    const wrapped = encode(new Port<string>({ addr: "unix:/elsewhere.sock", id: 9 }, 2, recordingSender()));
    const revived = decode(wrapped.body, wrapped.attachments) as Port<string>;
    assert.throws(() => revived.send("early"), /no Proc to send through/);
    const sender = recordingSender();
    setWirePortSender(() => sender);
    revived.send("hello");
    assert.deepEqual(sender.sent, [[{ addr: "unix:/elsewhere.sock", id: 9 }, 2, "hello", false, true]]);
  });
});
