// Frames: whatever way a byte stream is cut into chunks, the decoder gives back
// the frames that were sent, with attachments aligned for typed-array views.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { FrameDecoder, frameChunks, type Frame, type Landing } from "../../src/wire/frame.ts";
import { FrameError } from "../../src/wire/errors.ts";

const bytes = (max: number) => fc.uint8Array({ maxLength: max });
const frameArb = fc.record({ header: bytes(40), payload: bytes(300), attachments: fc.array(bytes(2000), { maxLength: 3 }) });

function decodeAll(stream: Buffer, cuts: number[], land?: Landing): Frame[] {
  const out: Frame[] = [];
  const decoder = new FrameDecoder((f) => out.push(f));
  if (land) decoder.landWith(land);
  let at = 0;
  for (const cut of [...cuts.filter((c) => c < stream.length)].sort((a, b) => a - b).concat(stream.length)) {
    decoder.push(stream.subarray(at, cut));
    at = cut;
  }
  return out;
}

/** `got` are `frames`, byte for byte. */
function assertSameFrames(got: readonly Frame[], frames: readonly Frame[]): void {
  got.forEach((g, i) => {
    assert.deepEqual(Buffer.from(g.header), Buffer.from(frames[i].header));
    assert.deepEqual(Buffer.from(g.payload), Buffer.from(frames[i].payload));
    assert.deepEqual(
      g.attachments.map((a) => Buffer.from(a)),
      frames[i].attachments.map((a) => Buffer.from(a)),
    );
  });
}

describe("FrameDecoder", () => {
  it("reassembles frames from any chunking of the stream", () => {
    fc.assert(
      fc.property(fc.array(frameArb, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(20000), { maxLength: 30 }), (frames, cuts) => {
        const stream = Buffer.concat(frames.flatMap(frameChunks));
        const got = decodeAll(stream, cuts);
        assert.equal(got.length, frames.length);
        assertSameFrames(got, frames);
      }),
    );
  });

  it("aligns attachments to 8 bytes within a frame copied whole", () => {
    const frame = { header: new Uint8Array(3), payload: new Uint8Array(5), attachments: [new Uint8Array(16), new Uint8Array(9), new Uint8Array(8)] };
    const stream = Buffer.concat(frameChunks(frame));
    const [got] = decodeAll(stream, [1]);
    for (const a of got.attachments) assert.equal(a.byteOffset % 8, 0);
  });

  it("lands the attachments of frames that span chunks where a Landing says, byte for byte, from any chunking", () => {
    fc.assert(
      fc.property(fc.array(frameArb, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(20000), { maxLength: 30 }), fc.boolean(), (frames, cuts, decline) => {
        const stream = Buffer.concat(frames.flatMap(frameChunks));
        const given: Uint8Array[][] = [];
        const land: Landing = (header, payload, lengths) => {
          if (decline && given.length % 2 === 1) return (given.push([]), null); // every other one declined: copied as usual
          const dests = lengths.map((n) => new Uint8Array(n + 3).subarray(3)); // unaligned on purpose: exactly where asked
          given.push(dests);
          return dests;
        };
        const got = decodeAll(stream, cuts, land);
        assert.equal(got.length, frames.length);
        assertSameFrames(got, frames);
        const landed = got.flatMap((g) => g.attachments).filter((a) => given.some((d) => d.includes(a)));
        assert.equal(landed.length, given.flat().length, "each destination given is an attachment delivered");
      }),
    );
  });

  it("lands a frame whose attachments are cut at every byte", () => {
    const attachments = [Uint8Array.from({ length: 21 }, (_, i) => i), new Uint8Array(0), new Uint8Array([9])];
    const frame = { header: new Uint8Array([1, 2, 3]), payload: new Uint8Array([4]), attachments };
    const stream = Buffer.concat(frameChunks(frame));
    const dests = [new Uint8Array(21), new Uint8Array(0), new Uint8Array(1)];
    const cuts = Array.from({ length: stream.length }, (_, i) => i).filter((i) => i > 40);
    const [got] = decodeAll(stream, cuts, () => dests);
    assert.ok(
      got.attachments.every((a, i) => a === dests[i]),
      "the very destinations given",
    );
    assert.deepEqual([...dests[0]], [...frame.attachments[0]]);
    assert.equal(dests[2][0], 9);
  });

  it("has landing attachments read straight into their destinations, the rest decoded from a scratch buffer used again, at any read sizes", () => {
    fc.assert(
      fc.property(
        fc.array(frameArb, { minLength: 1, maxLength: 5 }),
        fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 1, maxLength: 20 }),
        (frames, reads) => {
          const stream = Buffer.concat(frames.flatMap(frameChunks));
          const given: Uint8Array[] = [];
          const out: Frame[] = [];
          const decoder = new FrameDecoder((f) => out.push(f));
          decoder.landWith((_h, _p, lengths) => {
            const dests = lengths.map((n) => new Uint8Array(n));
            given.push(...dests);
            return dests;
          });
          // As a socket with `onread` reads: into the landing's space when there is one, else into one scratch buffer,
          // scribbled over after each read so a frame that kept a view of it would show.
          const scratch = Buffer.alloc(4096);
          let at = 0;
          let inPlace = 0;
          for (let i = 0; at < stream.length; i++) {
            const space = decoder.landingSpace();
            const into = space ?? scratch;
            const n = Math.min(reads[i % reads.length], into.byteLength, stream.length - at);
            into.set(stream.subarray(at, at + n));
            at += n;
            if (space) {
              inPlace += n;
              decoder.landedInPlace(n);
            } else {
              decoder.pushTransient(scratch.subarray(0, n));
              scratch.fill(0xee);
            }
          }
          assert.equal(out.length, frames.length);
          assertSameFrames(out, frames);
          const landed = out.flatMap((g) => g.attachments).filter((a) => given.includes(a));
          assert.equal(landed.length, given.length, "each destination given is an attachment delivered");
          const attachmentBytes = given.reduce((sum, d) => sum + d.byteLength, 0);
          assert.ok(inPlace <= attachmentBytes, "only attachment bytes are read in place");
        },
      ),
    );
  });

  it("reads the bulk of a large landing attachment in place", () => {
    const big = Uint8Array.from({ length: 1 << 20 }, (_, i) => i % 251);
    const stream = Buffer.concat(frameChunks({ header: new Uint8Array([1]), payload: new Uint8Array([2]), attachments: [big] }));
    const dest = new Uint8Array(big.length);
    const out: Frame[] = [];
    const decoder = new FrameDecoder((f) => out.push(f));
    decoder.landWith(() => [dest]);
    const scratch = Buffer.alloc(64 * 1024);
    let at = 0;
    let inPlace = 0;
    while (at < stream.length) {
      const space = decoder.landingSpace();
      const n = Math.min((space ?? scratch).byteLength, stream.length - at);
      (space ?? scratch).set(stream.subarray(at, at + n));
      at += n;
      if (space) {
        inPlace += n;
        decoder.landedInPlace(n);
      } else decoder.pushTransient(scratch.subarray(0, n));
    }
    assert.equal(out[0].attachments[0], dest);
    assert.deepEqual(dest, big);
    const head = stream.length - big.length;
    assert.equal(inPlace, big.length - (scratch.length - head), "all but what the first read took with the frame's head");
  });

  it("rejects bytes said to be read in place where no landing is", () => {
    assert.throws(() => new FrameDecoder(() => {}).landedInPlace(10), FrameError);
  });

  it("rejects a malformed length", () => {
    const decoder = new FrameDecoder(() => {});
    assert.throws(() => decoder.push(Buffer.from([1, 0, 0, 0, 9, 9])), FrameError);
  });
});
