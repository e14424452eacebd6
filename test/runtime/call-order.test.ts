// CallOrder, the receiving half of casting (call-order.ts): whatever order and
// however many times numbered calls arrive, each runs once, in number order,
// after the unnumbered ones that came before them over the link.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { CallOrder } from "../../src/runtime/calls/call-order.ts";
import { subtrees } from "../../src/runtime/calls/cast-tree.ts";

describe("call order", () => {
  it("runs every call once and in order, however numbered calls are shuffled and repeated", () => {
    fc.assert(
      fc.property(fc.nat(20), fc.integer({ min: 1, max: 60 }), fc.infiniteStream(fc.nat()), (unnumbered, numbered, random) => {
        const ran: number[] = [];
        const order = new CallOrder(() => {});
        // The unnumbered prefix comes over the link in order; numbered calls come any way, some twice.
        const arrivals: Array<number> = Array.from({ length: numbered }, (_, i) => unnumbered + 1 + i);
        for (const q of [...arrivals]) if (random.next().value % 4 === 0) arrivals.push(q);
        const shuffled = arrivals
          .map((q) => [random.next().value, q] as const)
          .sort((a, b) => a[0] - b[0])
          .map(([, q]) => q);
        let link = 0;
        for (const q of shuffled) {
          if (link < unnumbered && random.next().value % 2 === 0) {
            ran.push(++link);
            order.ranUnnumbered("s");
          }
          order.numbered("s", q, () => ran.push(q));
        }
        while (link < unnumbered) {
          ran.push(++link);
          order.ranUnnumbered("s");
        }
        assert.deepEqual(
          ran,
          Array.from({ length: unnumbered + numbered }, (_, i) => i + 1),
        );
      }),
    );
  });

  it("keeps senders apart, and waits for a number of calls before what comes after them (a stop)", () => {
    const order = new CallOrder(() => {});
    const events: string[] = [];
    order.whenRan("a", 2, () => events.push("stop a"));
    order.numbered("a", 2, () => events.push("a2"));
    order.numbered("b", 1, () => events.push("b1"));
    order.numbered("a", 1, () => events.push("a1"));
    assert.deepEqual(events, ["b1", "a1", "a2", "stop a"]);
  });

  it("acknowledges every 256 numbered calls with how far it got", () => {
    const acks: Array<[string, number]> = [];
    const order = new CallOrder((origin, q) => acks.push([origin, q]));
    for (let q = 512; q >= 1; q--) order.numbered("s", q, () => {});
    order.forget("s"); // and cancels the timer for the rest
    assert.deepEqual(acks, [["s", 512]]);
  });

  it("splits a tree's runs so that every process is in exactly one, at most fan-out of them", () => {
    fc.assert(
      fc.property(fc.nat(2_000), fc.integer({ min: 2, max: 64 }), (n, fanout) => {
        const items = Array.from({ length: n }, (_, i) => i);
        const runs = subtrees(items, fanout);
        assert.ok(runs.length <= fanout);
        assert.deepEqual(runs.flat(), items);
        const lengths = runs.map((r) => r.length);
        if (n > 0) assert.ok(Math.max(...lengths) - Math.min(...lengths) <= 1);
      }),
    );
  });
});
