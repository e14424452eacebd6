// The header table: a repeatable header crosses a connection once, and one with a
// variable (a call's reply port id) comes back with each send's own variable.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodePlain, decodePlain } from "../../src/wire/codec.ts";
import { FrameError } from "../../src/wire/errors.ts";
import { HeaderDecoder, HeaderEncoder, MAX_TABLE_BYTES } from "../../src/wire/header-table.ts";

type H = { k: string; reply?: number };
const read = (bytes: Uint8Array) => decodePlain(bytes) as H;
const vary = (h: H, v: number): H => ({ ...h, reply: v });

describe("header table", () => {
  it("sends a repeatable header in full once, then as a short reference", () => {
    const enc = new HeaderEncoder();
    const dec = new HeaderDecoder(read, vary);
    const header = encodePlain({ k: "call", mesh: "m1", endpoint: "ping" });
    const first = enc.encode(header, true);
    const second = enc.encode(header, true);
    assert.ok(first.length > header.length && first.length <= header.length + MAX_TABLE_BYTES);
    assert.ok(second.length < 8, `a reference is a few bytes, not ${second.length}`);
    assert.deepEqual(dec.decode(first), { k: "call", mesh: "m1", endpoint: "ping" });
    assert.deepEqual(dec.decode(second), { k: "call", mesh: "m1", endpoint: "ping" });
  });

  it("puts each send's variable into the kept header", () => {
    const enc = new HeaderEncoder();
    const dec = new HeaderDecoder(read, vary);
    const header = encodePlain({ k: "call", reply: 0 });
    const sent = [7, 0, 2 ** 32 - 1, 12345].map((v) => enc.encode(header, true, v));
    assert.ok(sent[1].length < 12, `a reference with a variable is a few bytes, not ${sent[1].length}`);
    assert.deepEqual(
      sent.map((b) => dec.decode(b)),
      [7, 0, 2 ** 32 - 1, 12345].map((reply) => ({ k: "call", reply })),
    );
  });

  it("leaves a header that is not repeatable as it is", () => {
    const header = encodePlain({ k: "one-off" });
    assert.equal(new HeaderEncoder().encode(header, false), header);
    assert.deepEqual(new HeaderDecoder(read).decode(header), { k: "one-off" });
  });

  it("refuses a variable that is not a u32", () => {
    const header = encodePlain({ k: "call" });
    for (const v of [-1, 1.5, 2 ** 32]) assert.throws(() => new HeaderEncoder().encode(header, true, v), /u32/);
  });

  it("sends headers in full, variables included, once the table is full", () => {
    const enc = new HeaderEncoder();
    const dec = new HeaderDecoder(read, vary);
    for (let i = 0; i < 1 << 16; i++) dec.decode(enc.encode(encodePlain({ k: "filler", i }), true));
    const header = encodePlain({ k: "late", reply: 0 });
    assert.deepEqual(dec.decode(enc.encode(header, true, 99)), { k: "late", reply: 99 });
    assert.deepEqual(dec.decode(enc.encode(header, true, 100)), { k: "late", reply: 100 });
    const plain = encodePlain({ k: "late-plain" });
    assert.equal(enc.encode(plain, true), plain);
  });

  it("disconnects a peer that refers to a header it never sent, or sends a truncated one", () => {
    const dec = new HeaderDecoder(read, vary);
    const reference = new HeaderEncoder();
    const header = encodePlain({ k: "x" });
    reference.encode(header, true, 1); // defines header 0 on that encoder's connection, not this decoder's
    assert.throws(() => dec.decode(reference.encode(header, true, 2)), FrameError);
    assert.throws(() => dec.decode(Uint8Array.of(0xc1, 2, 0, 0)), FrameError);
  });
});
