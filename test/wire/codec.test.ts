// The value codec: every kind of value the wire layer carries (primitives,
// objects, arrays, Map, Set, Date, BigInt, typed arrays, errors with their cause
// chains, fray's own handles) survives a round trip, large typed arrays travel
// out of band, and unsendable values are refused with the path to the culprit.
// Every entry point is imported, so every extension type the layers register is
// in place (they once took one of msgpackr's).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import fc from "fast-check";
import { Packr, Unpackr } from "msgpackr";
import { createJobContext } from "../../src/job.ts";
import { headAt, kOwner, ObjectRef } from "../../src/job/objects/object-ref.ts";
import { ActorError, NotExportedError, SupervisionError } from "../../src/mesh.ts";
import { JobFailedError } from "../../src/cluster.ts";
import { InvalidLeaseError } from "../../src/queue.ts";
import { decode, encode, encodeArguments, OUT_OF_BAND_BYTES } from "../../src/wire/codec.ts";
import { DecodingError, SerializationError } from "../../src/wire/errors.ts";
import { claimExtensionType, EXTENSION_TYPES, MSGPACKR_TYPES, type ExtensionName } from "../../src/wire/extension-types.ts";

const roundTrip = <T>(v: T): T => {
  const { body, attachments } = encode(v);
  return decode(body, attachments) as T;
};

// msgpackr renames a "__proto__" key to "__proto_" (so no value can set a prototype); other keys arrive as sent.
const key = fc.string().filter((k) => k !== "__proto__");

/** The errors in `a` paired with those at the same places in `b`. */
function errorsIn(a: unknown, b: unknown, out: Array<[Error, Error]> = []): Array<[Error, Error]> {
  if (a instanceof Error) out.push([a, b as Error]);
  else if (a instanceof Map) [...a.values()].forEach((v, i) => errorsIn(v, [...(b as Map<unknown, unknown>).values()][i], out));
  else if (a instanceof Set) [...a].forEach((v, i) => errorsIn(v, [...(b as Set<unknown>)][i], out));
  else if (a && typeof a === "object" && !ArrayBuffer.isView(a))
    for (const k of Object.keys(a)) errorsIn((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], out);
  return out;
}

/** Values nested of `leaf`s: arrays, plain objects, Maps and Sets, to a small depth. */
function nested<T>(leaf: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: "small" },
      leaf,
      fc.array(tie("node")),
      fc.dictionary(key, tie("node"), { noNullPrototype: true }),
      fc.array(fc.tuple(leaf, tie("node"))).map((e) => new Map(e)),
      fc.array(leaf).map((a) => new Set(a)),
    ),
  })).node;
}

describe("codec", () => {
  it("round-trips arbitrary JSON-like values, Maps, Sets, Dates and BigInts", () => {
    // -0 arrives as 0 (msgpack has one integer zero), as it would through JSON.
    const leaf = fc.oneof(
      fc.integer(),
      fc.double({ noNaN: true }).filter((d) => !Object.is(d, -0)),
      fc.string(),
      fc.boolean(),
      fc.constant(null),
      fc.bigInt(),
      fc.date({ noInvalidDate: true }),
    );
    const value = nested(leaf);
    fc.assert(fc.property(value, (v) => assert.deepEqual(roundTrip(v), v)));
  });

  it("encodes the smallest values (integers of up to 32 bits, null, booleans, undefined, []) as msgpack any decoder reads, and decodes them", () => {
    const options = { moreTypes: true } as ConstructorParameters<typeof Packr>[0];
    const [reference, referenceEncoder] = [new Unpackr(options), new Packr(options)];
    const edges = [0, 1, 63, 64, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, 2 ** 53, -1, -32, -33, -128, -129, -32768, -32769, -(2 ** 31)];
    for (const v of [...edges, -(2 ** 31) - 1, 1.5, -2.5, NaN, Infinity, null, true, false, undefined, [], [1], "s"]) {
      const { body, attachments } = encode(v);
      assert.equal(attachments.length, 0);
      assert.deepEqual(reference.unpack(Buffer.from(body)), v, `msgpackr reads ${String(v)}`);
      assert.deepEqual(decode(body), v);
      assert.deepEqual(decode(referenceEncoder.pack(v)), v, `${String(v)} as msgpackr writes it`);
    }
    // An empty argument list arrives as a fresh array each time: the receiver may add to it (an explicit-port endpoint's Port).
    const body = encodeArguments([], "f").body;
    const first = decode(body) as unknown[];
    first.push(1);
    assert.deepEqual(decode(body), []);
  });

  it("round-trips every typed array kind, small and large", () => {
    const kinds = [
      Int8Array,
      Uint8Array,
      Uint8ClampedArray,
      Int16Array,
      Uint16Array,
      Int32Array,
      Uint32Array,
      Float32Array,
      Float64Array,
      BigInt64Array,
      BigUint64Array,
    ];
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

  it("round-trips every kind of value with every entry point imported", () => {
    // -0 arrives as 0 (msgpack has one integer zero), as it would through JSON.
    const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n });
    const huge = fc.oneof(fc.bigInt({ min: 2n ** 64n, max: 2n ** 300n }), fc.bigInt({ min: -(2n ** 300n), max: -(2n ** 63n) - 1n }));
    const typedArray = fc.oneof(
      fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 8 }).map((a) => Int32Array.from(a)),
      fc.array(fc.double({ noNaN: true }), { minLength: 128, maxLength: 200 }).map((a) => Float64Array.from(a)), // ≥ 1 KiB: out of band
      fc.uint8Array({ minLength: OUT_OF_BAND_BYTES, maxLength: OUT_OF_BAND_BYTES + 9 }),
      fc
        .array(
          int64.filter((b) => b < 2n ** 63n),
          { maxLength: 4 },
        )
        .map((a) => BigInt64Array.from(a)),
    );
    const error = fc
      .tuple(
        fc.constantFrom(Error, TypeError, RangeError),
        fc.string(),
        fc.option(fc.string(), { nil: undefined }),
        fc.option(fc.integer(), { nil: undefined }),
      )
      .map(([Kind, message, cause, code]) => {
        const e = cause === undefined ? new Kind(message) : new Kind(message, { cause: new Error(cause) });
        return code === undefined ? e : Object.assign(e, { code });
      });
    const leaf = fc.oneof(
      fc.integer(),
      fc.double().filter((d) => !Object.is(d, -0)),
      fc.string(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      int64,
      huge,
      fc.date({ noInvalidDate: true }),
      typedArray,
      error,
    );
    const value = nested(leaf);
    fc.assert(
      fc.property(value, (v) => {
        const back = roundTrip(v);
        assert.deepEqual(back, v);
        for (const [a, b] of errorsIn(v, back)) {
          assert.equal(b.constructor, a.constructor);
          assert.deepEqual(
            [b.name, b.message, b.stack, (b.cause as Error | undefined)?.message],
            [a.name, a.message, a.stack, (a.cause as Error | undefined)?.message],
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  it("sends a BigInt beyond 64 bits with ObjectRef registered (both once used extension type 0x42)", () => {
    for (const n of [2n ** 70n, -(2n ** 70n), 2n ** 64n, 2n ** 1000n + 1n]) assert.equal(roundTrip(n), n);
  });

  it("allocates each extension type once, none of them msgpackr's", () => {
    const types = Object.values(EXTENSION_TYPES);
    assert.equal(new Set(types).size, types.length);
    for (const t of types) assert.ok(!MSGPACKR_TYPES.has(t), `0x${t.toString(16)} is msgpackr's`);
    // Every entry was claimed by importing the entry points; claiming again throws.
    for (const name of Object.keys(EXTENSION_TYPES) as ExtensionName[]) assert.throws(() => claimExtensionType(name), /registered twice/);
    assert.throws(() => claimExtensionType("noSuchType" as ExtensionName), /no msgpack extension type is allocated to 'noSuchType'/);
  });

  it("knows every extension type msgpackr reads by itself", () => {
    // A fresh process with msgpackr alone: each type msgpackr has no reader for is refused as unknown.
    const probe = `
      import { Packr, Unpackr } from "msgpackr";
      const known = [];
      for (let t = 0; t < 256; t++) {
        try { new Unpackr({ moreTypes: true }).unpack(Buffer.from([0xc7, 0, t, 0xc0])); known.push(t); }
        catch (e) { if (!/Unknown extension type/.test(e.message)) known.push(t); }
      }
      console.log(JSON.stringify(known));`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", probe], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    // 0x72 (record definitions) is read before the extension table is consulted, so the probe cannot see it.
    assert.deepEqual(
      JSON.parse(run.stdout),
      [...MSGPACKR_TYPES.keys()].filter((t) => t !== 0x72).sort((a, b) => a - b),
    );
  });

  it("sends SharedArrayBuffer-backed arrays of any size out of band, as views of the same memory", () => {
    const small = new Int32Array(new SharedArrayBuffer(16));
    const { body, attachments } = encode({ small });
    assert.equal(attachments.length, 1);
    assert.equal(attachments[0].buffer, small.buffer);
    const back = decode(body, attachments) as { small: Int32Array };
    back.small[1] = 7;
    assert.equal(small[1], 7);
  });

  it("refuses a circular value naming the cycle's path and what to do", () => {
    const a: Record<string, unknown> = { a: { b: null } };
    (a.a as Record<string, unknown>).b = a.a;
    assert.throws(
      () => encodeArguments([a], "Counter.incr"),
      (e: Error) =>
        e instanceof SerializationError &&
        /^argument 1 of Counter\.incr: a circular reference at \.a\.b back to \.a cannot be sent/.test(e.message) &&
        /Remove the cycle before sending, or send an id/.test(e.message),
    );
    const self: Record<string, unknown> = {};
    self.me = [self];
    assert.throws(() => encode(self, "the reply"), /^SerializationError: the reply: a circular reference at \.me\[0\] back to the value itself cannot be sent/);
    const m = new Map<string, unknown>();
    m.set("k", { m });
    assert.throws(() => encode([1, m]), /at \[1\]\.get\("k"\)\.m back to \[1\] cannot be sent/);
    // An object seen twice without a cycle is fine.
    const shared = { x: 1 };
    assert.deepEqual(roundTrip([shared, shared]), [{ x: 1 }, { x: 1 }]);
  });

  it("keeps fray's own error classes, with their fields", () => {
    const job = new JobFailedError([
      { jobId: "j1", name: "train", status: "failed", tasks: [{ status: "failed", errorMessage: "boom" }], errorMessage: "boom" },
    ]);
    const back = roundTrip(job);
    assert.ok(back instanceof JobFailedError);
    assert.deepEqual(back.jobs, job.jobs);
    assert.equal(back.message, job.message);
    assert.equal(back.stack, job.stack);
    const actor = roundTrip(new ActorError("Echo", "echo", { rank: 2, coords: { gpus: 2 }, mesh: "echoes" }, new SupervisionError("gone")));
    assert.ok(actor instanceof ActorError);
    assert.equal(actor.rank, 2);
    assert.deepEqual(actor.coords, { gpus: 2 });
    assert.ok(actor.cause instanceof SupervisionError);
    for (const e of [
      new SupervisionError("s"),
      new SerializationError("x"),
      new NotExportedError("n"),
      new InvalidLeaseError("l"),
      new DecodingError("the reply", "unix:/x", new Error("bad")),
    ]) {
      const b = roundTrip(e);
      assert.equal(b.constructor, e.constructor);
      assert.equal(b.message, e.message);
    }
  });

  it("refuses functions and symbols naming where they are", () => {
    assert.throws(
      () => encode({ a: [1, { cb: () => 1 }] }, "argument"),
      (e: Error) => e instanceof SerializationError && /argument: the function cb at \.a\[1\]\.cb cannot be sent to another process/.test(e.message),
    );
    assert.throws(() => encode(new Map([["k", Symbol("s")]])), /the symbol Symbol\(s\) at \.get\("k"\) cannot be sent/);
  });

  it("a handle whose class a process has not loaded passes through it unchanged, and is the real handle where its class is loaded", () => {
    // A process with the codec alone (a named actor's module that imports nothing from fray) decodes and sends back an ObjectRef.
    const ref = new ObjectRef("r1", headAt("unix:/tmp/driver.sock", "head-1"));
    const { body } = encode({ refs: [ref], n: 2n ** 70n });
    const codec = new URL("../../src/wire/codec.ts", import.meta.url).href;
    const probe = `
      import { decode, encode } from ${JSON.stringify(codec)};
      const value = decode(Buffer.from(process.argv[1], "base64"));
      console.log(String(value.refs[0]));
      console.log(Buffer.from(encode(value).body).toString("base64"));`;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", probe, Buffer.from(body).toString("base64")], {
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
    const [seen, back] = run.stdout.trim().split("\n");
    assert.match(seen, /^objectRef handle \(its class is not loaded in this process, so it can only be passed on: import its module/);
    const returned = decode(Buffer.from(back, "base64")) as { refs: [ObjectRef]; n: bigint };
    assert.ok(returned.refs[0] instanceof ObjectRef);
    assert.equal(returned.refs[0].id, "r1");
    assert.equal(returned.refs[0][kOwner], ref[kOwner], "the same owner: the head it names");
    assert.equal(returned.n, 2n ** 70n);
  });

  it("refuses to send an ObjectRef of a sync job context, naming where it was and what to do", () => {
    const ctx = createJobContext("sync");
    assert.throws(
      () => encodeArguments([{ kept: ctx.put(1) }], "Holder.keep"),
      /^SerializationError: the arguments of Holder\.keep: ObjectRef\(sync-0\) belongs to a sync job context, which keeps its values in this process: .*Send its value \(await ctx\.get\(ref\)\), or run the job on the threads or processes backend$/,
    );
  });
});
