// The sending side of ports: values sent to one port in one tick go in one frame, ports' frames go in the
// order of their first value (ports of two processes may share an id), and a value with attachments goes
// at once, after what its port had queued.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decode, type Encoded } from "../../src/wire/codec.ts";
import type { Header } from "../../src/runtime/base/messages.ts";
import { PortOutbox } from "../../src/runtime/ports/port-outbox.ts";

type Sent = [addr: string, header: Header, value: unknown];

function outbox(): [PortOutbox, Sent[]] {
  const sent: Sent[] = [];
  const box = new PortOutbox((addr: string, header: Header, payload: Encoded) => sent.push([addr, header, decode(payload.body, payload.attachments)]));
  return [box, sent];
}

describe("PortOutbox", () => {
  it("sends each port's values of a tick in one frame, ports in the order of their first value", async () => {
    const [box, sent] = outbox();
    const a = { addr: "unix:/a", id: 7 };
    const b = { addr: "unix:/b", id: 7 }; // same id, another process
    const c = { addr: "unix:/a", id: 9 };
    box.send(c, 0, "c0", false, true);
    box.send(b, 0, "b0", false, true);
    box.send(a, 0, "a0", false, true);
    box.send(b, 1, "b1", false, true);
    box.send(a, 1, new Error("a1"), true, true);
    box.send(c, 1, "c1", false, true);
    assert.equal(sent.length, 0, "nothing goes before the tick ends");
    await new Promise((resolve) => process.nextTick(resolve));
    assert.deepEqual(
      sent.map(([addr, h, v]) => [addr, h, (v as unknown[]).map((x) => (x instanceof Error ? x.message : x))]),
      [
        ["unix:/a", { kind: "ports", id: 9, ranks: [0, 1], errors: [0, 0] }, ["c0", "c1"]],
        ["unix:/b", { kind: "ports", id: 7, ranks: [0, 1], errors: [0, 0] }, ["b0", "b1"]],
        ["unix:/a", { kind: "ports", id: 7, ranks: [0, 1], errors: [0, 1] }, ["a0", "a1"]],
      ],
    );
  });

  it("sends a value with attachments at once, after its port's queued values, and keeps the other ports' for the tick", async () => {
    const [box, sent] = outbox();
    const a = { addr: "unix:/a", id: 1 };
    const b = { addr: "unix:/b", id: 1 };
    box.send(b, 0, "b0", false, true);
    box.send(a, 0, "a0", false, true);
    box.send(a, 1, new Float64Array(1024), false, true);
    assert.deepEqual(
      sent.map(([addr, h]) => [addr, h]),
      [
        ["unix:/a", { kind: "port", id: 1, rank: 0 }],
        ["unix:/a", { kind: "port", id: 1, rank: 1 }],
      ],
    );
    box.send(b, 1, "b1", false, true); // still one batch with b0: the id's index moved to it
    await new Promise((resolve) => process.nextTick(resolve));
    assert.deepEqual(sent.slice(2), [["unix:/b", { kind: "ports", id: 1, ranks: [0, 1], errors: [0, 0] }, ["b0", "b1"]]]);
  });

  it("has each process's frames written once the tick's values are sent, not at the end of another tick", async () => {
    const events: string[] = [];
    const box = new PortOutbox(
      (addr: string, header: Header) => events.push(`send ${addr} ${header.kind}`),
      (addr: string) => events.push(`flush ${addr}`),
    );
    box.send({ addr: "unix:/a", id: 1 }, 0, 1, false, true);
    box.send({ addr: "unix:/b", id: 2 }, 0, 2, false, true);
    box.send({ addr: "unix:/a", id: 3 }, 0, 3, false, true);
    await new Promise((resolve) => process.nextTick(resolve));
    assert.deepEqual(events.slice(0, 3), ["send unix:/a port", "send unix:/b port", "send unix:/a port"]);
    assert.deepEqual(new Set(events.slice(3)), new Set(["flush unix:/a", "flush unix:/b"]));
  });
});
