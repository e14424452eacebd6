// What a MessagePortTransport tells of itself, for a layer above to build on (the job layer's doorbell,
// src/job/routes/thread-lane/doorbell.ts): the messages it took, from the first; whether it has frames
// queued for the end of the tick; and a call after each message it posts.
import assert from "node:assert/strict";
import { it } from "node:test";
import { MessageChannel } from "node:worker_threads";
import { frameOf } from "../../src/wire/frame.ts";
import { MessagePortTransport } from "../../src/wire/message-port-transport.ts";

const frame = (n: number) => frameOf(new Uint8Array([n]));

it("counts the messages it takes, one per tick's flush however many frames it held; calls afterPost after each post; tells of queued frames", async () => {
  const { port1, port2 } = new MessageChannel();
  let posts = 0;
  const parent = new MessagePortTransport(port1, () => posts++);
  const thread = new MessagePortTransport(port2);
  const got: number[] = [];
  thread.listen({ frame: (f) => got.push(f.header[0]), close: () => {} });
  parent.listen({ frame: () => {}, close: () => {} });
  try {
    assert.equal(thread.taken, 0);
    parent.send(frame(1));
    parent.send(frame(2));
    assert.equal(parent.queued, true);
    assert.equal(posts, 0);
    await new Promise((resolve) => setImmediate(resolve)); // the tick's flush: one message
    assert.equal(parent.queued, false);
    assert.equal(posts, 1);
    parent.send(frame(3));
    parent.flush(); // now: a second message
    assert.equal(posts, 2);
    while (got.length < 3) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(got, [1, 2, 3]);
    assert.equal(thread.taken, 2);
    assert.equal(parent.taken, 0);
  } finally {
    parent.close();
    thread.close();
  }
});
