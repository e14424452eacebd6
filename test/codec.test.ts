// The value codec: every kind of value DESIGN.md lists survives a round trip,
// large typed arrays travel out of band, and unsendable values are refused with
// the path to the culprit.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { decode, encode, OUT_OF_BAND_BYTES } from "../src/wire/codec.ts";
import { SerializationError } from "../src/wire/errors.ts";

const roundTrip = <T>(v: T): T => {
  const { body, attachments } = encode(v);
  return decode(body, attachments) as T;
};

describe("codec", () => {
  it("round-trips arbitrary JSON-like values, Maps, Sets, Dates and BigInts", () => {
    // -0 arrives as 0 (msgpack has one integer zero), as it would through JSON.
    const leaf = fc.oneof(fc.integer(), fc.double({ noNaN: true }).filter((d) => !Object.is(d, -0)), fc.string(), fc.boolean(), fc.constant(null), fc.bigInt(), fc.date({ noInvalidDate: true }));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("node")), fc.dictionary(fc.string(), tie("node"), { noNullPrototype: true }),
        fc.array(fc.tuple(leaf, tie("node"))).map((e) => new Map(e)), fc.array(leaf).map((a) => new Set(a))),
    })).node;
    fc.assert(fc.property(value, (v) => assert.deepEqual(roundTrip(v), v)));
  });

  it("round-trips every typed array kind, small and large", () => {
    const kinds = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array];
    for (const Kind of kinds) {
      for (const n of [3, 4096]) {
        const a = new Kind(n);
        for (let i = 0; i < n; i++) (a as unknown as unknown[])[i] = Kind === BigInt64Array || Kind === BigUint64Array ? BigInt(i) : i % 100;
        const back = roundTrip({ a });
        assert.equal(back.a.constructor, Kind);
        assert.deepEqual(back.a, a);
      }
    }
  });

  it("sends large typed arrays out of band, not inside the body", () => {
    const big = new Float64Array(1 << 16).fill(1.5);
    const { body, attachments } = encode({ big, small: new Float64Array(4) });
    assert.equal(attachments.length, 1);
    assert.equal(attachments[0].buffer, big.buffer, "the attachment is a view of the sender's array, not a copy");
    assert.ok(body.length < OUT_OF_BAND_BYTES, `body is ${body.length} bytes`);
    const back = decode(body, attachments) as { big: Float64Array };
    assert.equal(back.big.length, 1 << 16);
    assert.equal(back.big[100], 1.5);
  });

  it("keeps an error's class name, message, stack, cause chain and fields", () => {
    class ValueError extends Error {
      override name = "ValueError";
    }
    const root = Object.assign(new TypeError("root"), { code: "E_ROOT" });
    const err = new ValueError("Task failed!", { cause: new Error("middle", { cause: root }) });
    const back = roundTrip(err);
    assert.equal(back.name, "ValueError");
    assert.equal(back.message, "Task failed!");
    assert.equal(back.stack, err.stack);
    const middle = back.cause as Error;
    assert.equal(middle.message, "middle");
    const rootBack = middle.cause as TypeError & { code: string };
    assert.ok(rootBack instanceof TypeError);
    assert.equal(rootBack.code, "E_ROOT");
  });

  it("refuses functions and symbols naming where they are", () => {
    assert.throws(() => encode({ a: [1, { cb: () => 1 }] }, "argument"), (e: Error) =>
      e instanceof SerializationError && /argument: the function cb at \.a\[1\]\.cb cannot be sent to another process/.test(e.message));
    assert.throws(() => encode(new Map([["k", Symbol("s")]])), /the symbol Symbol\(s\) at \.get\("k"\) cannot be sent/);
  });
});
