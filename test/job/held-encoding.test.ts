// The bytes a holder keeps for a held value (src/job/objects/held-encoding.ts): a reader decodes them with no copy after
// the transfer — each typed array a view of the bytes read, whatever its element width and whatever came before it.
import assert from "node:assert/strict";
import { it } from "node:test";
import { decodeHeld, encodeHeld } from "../../src/job/objects/held-encoding.ts";

/** As a reader has them: copied into fresh memory of their own. */
const read = (bytes: Uint8Array) => new Uint8Array(bytes);

it("a held value's typed arrays decode as views of the bytes read, not copies", () => {
  const value = {
    odd: new Uint8Array(200_001).fill(3), // an odd length before the others, so nothing lands aligned by chance
    doubles: Float64Array.from({ length: 100_000 }, (_, i) => i / 3),
    bigs: BigInt64Array.from({ length: 30_000 }, (_, i) => BigInt(i) << 40n),
    name: "partition 7",
  };
  const bytes = read(encodeHeld(value, "the value"));
  const back = decodeHeld(bytes) as typeof value;
  assert.deepEqual(back, value);
  for (const key of ["odd", "doubles", "bigs"] as const) assert.equal(back[key].buffer, bytes.buffer, `${key} is a view of the bytes read`);
});

it("a held value without typed arrays, and one that is only a typed array, read back as they were", () => {
  for (const value of [null, 42, "text", [1, { a: new Map([[1, 2]]) }], new Float32Array(70_000).fill(1.5)])
    assert.deepEqual(decodeHeld(read(encodeHeld(value, "the value"))), value);
});

it("the holder keeps a buffer of exactly the value's bytes", () => {
  const bytes = encodeHeld(new Float64Array(50_000), "the value");
  assert.equal(bytes.byteOffset, 0);
  assert.equal(bytes.byteLength, bytes.buffer.byteLength);
});
