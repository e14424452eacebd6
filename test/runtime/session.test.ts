// The record a TCP link keeps so a dropped connection can be resumed (src/runtime/net/session.ts): what was sent
// and not acked is kept, in order, attachments copied; an ack releases what it covers; a claim of more than was
// sent is refused.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Session } from "../../src/runtime/net/session.ts";
import type { Frame } from "../../src/wire/frame.ts";

const frame = (n: number, attachment?: Uint8Array): Frame => ({
  header: Uint8Array.of(n),
  payload: new Uint8Array(0),
  attachments: attachment ? [attachment] : [],
});

describe("Session: frames kept until acked", () => {
  it("keeps every frame sent until the peer acks it; unacked() is the rest, in order", () => {
    const session = new Session();
    for (let i = 0; i < 5; i++) session.keep(frame(i));
    assert.equal(session.sent, 5);
    assert.equal(session.acked(2), true);
    assert.deepEqual(
      session.unacked().map((f) => f.header[0]),
      [2, 3, 4],
    );
    assert.equal(session.acked(1), true, "an older ack changes nothing");
    assert.deepEqual(
      session.unacked().map((f) => f.header[0]),
      [2, 3, 4],
    );
    assert.equal(session.acked(5), true);
    assert.deepEqual(session.unacked(), []);
    assert.equal(session.sent, 5);
  });

  it("refuses an ack of more than was sent (the peer's count is of another link)", () => {
    const session = new Session();
    session.keep(frame(0));
    assert.equal(session.acked(2), false);
    assert.equal(session.acked(1.5), false);
    assert.equal(session.keptCount, 1);
  });

  it("copies attachments as it keeps them: a program that reuses its array after the call does not change what is sent again", () => {
    const session = new Session();
    const data = Uint8Array.of(1, 2, 3);
    session.keep(frame(0, data));
    data.fill(9);
    assert.deepEqual([...session.unacked()[0]!.attachments[0]!], [1, 2, 3]);
  });

  it("stays correct across the compaction of many acked frames", () => {
    const session = new Session();
    for (let i = 0; i < 5000; i++) session.keep(frame(i % 256));
    for (let n = 100; n <= 4990; n += 100) assert.equal(session.acked(n), true);
    assert.equal(session.keptCount, 5000 - 4900);
    assert.deepEqual(
      session.unacked().map((f) => f.header[0]),
      Array.from({ length: 100 }, (_, i) => (4900 + i) % 256),
    );
    assert.equal(session.sent, 5000);
  });

  it("names each link at random", () => {
    assert.notEqual(new Session().id, new Session().id);
  });
});
