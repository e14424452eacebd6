// Headers as they cross the wire: a port message in its own short form, every
// other header as msgpack, and a call's reply port id put back into a kept header.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeHeader, encodeHeader, withReplyId } from "../../src/runtime/base/header-codec.ts";
import type { Header } from "../../src/runtime/base/messages.ts";

describe("header codec", () => {
  it("round-trips port messages, values and errors, in 9 bytes", () => {
    for (const h of [
      { kind: "port", id: 1, rank: 0 },
      { kind: "port", id: 2 ** 32 - 1, rank: 2 ** 32 - 1, isError: true },
    ] satisfies Header[]) {
      const bytes = encodeHeader(h);
      assert.equal(bytes.length, 9);
      assert.deepEqual(decodeHeader(bytes), h);
    }
  });

  it("sends a port message whose numbers do not fit a u32 as msgpack", () => {
    const h = { kind: "port", id: 3, rank: 2 ** 40 } satisfies Header;
    assert.ok(encodeHeader(h).length > 9);
    assert.deepEqual(decodeHeader(encodeHeader(h)), h);
  });

  it("round-trips other headers under their full names", () => {
    const call = {
      kind: "msg",
      mesh: "m",
      endpoint: "ping",
      extent: [["x"], [2]],
      reply: { addr: "unix:/tmp/a.sock", id: 0 },
      members: [1],
      ranks: [1],
    } satisfies Header;
    assert.deepEqual(decodeHeader(encodeHeader(call)), call);
    assert.deepEqual(withReplyId(decodeHeader(encodeHeader(call)), 42), { ...call, reply: { addr: "unix:/tmp/a.sock", id: 42 } });
  });

  it("refuses a reply port id on a header that has no reply", () => {
    assert.throws(() => withReplyId({ kind: "cast-ack", seq: 1 }, 5), /only calls that want a reply/);
  });
});
