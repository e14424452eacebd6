// Which call headers a link keeps: a call to a group the endpoint keeps sends its header once per link
// (a reply port id beside it each time); a call to a group made for it alone (the live ranks of a
// group with dead ones) sends its header in full, so the receiver's table does not grow with every call.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeHeader } from "../../src/runtime/base/header-codec.ts";
import { CallSender, type CallGroup } from "../../src/runtime/calls/call-sender.ts";
import { encodeArguments } from "../../src/wire/codec.ts";

type Sent = { header: Uint8Array; repeatable: boolean; variable?: number };

function sender(): [CallSender, Sent[]] {
  const sent: Sent[] = [];
  const host = {
    addr: "unix:/me",
    connected: () => true,
    lostPeer: () => undefined,
    sendEncoded: (_addr: string, _kind: string, header: Uint8Array, _payload: unknown, repeatable: boolean, variable?: number) =>
      sent.push({ header, repeatable, variable }) > 0,
  };
  return [new CallSender(host), sent];
}

const fields = (id: number) => ({ mesh: "m", endpoint: "ping", extent: [[], []] as const, reply: { addr: "unix:/me", id } });
const payload = encodeArguments([], "ping");

describe("call headers", () => {
  it("sends a kept group's header as the same bytes each call, with the reply port id beside them", () => {
    const [calls, sent] = sender();
    const group: CallGroup = { addr: "unix:/peer", members: [0], ranks: [0] };
    calls.send(fields(5), [group], payload);
    calls.send(fields(6), [group], payload);
    assert.deepEqual(
      sent.map((s) => [s.repeatable, s.variable]),
      [
        [true, 5],
        [true, 6],
      ],
    );
    assert.equal(sent[0].header, sent[1].header);
  });

  it("sends a group made for one call in full, not for the link to keep", () => {
    const [calls, sent] = sender();
    calls.send(fields(7), [{ addr: "unix:/peer", members: [1], ranks: [1], transient: true }], payload);
    calls.send(fields(8), [{ addr: "unix:/peer", members: [1], ranks: [1], transient: true }], payload);
    assert.deepEqual(
      sent.map((s) => [s.repeatable, s.variable]),
      [
        [false, undefined],
        [false, undefined],
      ],
    );
    assert.deepEqual(
      sent.map((s) => (decodeHeader(s.header) as { reply: unknown }).reply),
      [
        { addr: "unix:/me", id: 7 },
        { addr: "unix:/me", id: 8 },
      ],
    );
  });
});
