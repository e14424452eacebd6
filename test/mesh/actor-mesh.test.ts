// ActorMesh: spawning, the endpoint adverbs, ValueMesh results, context, and
// the errors a caller can get. Ported from Monarch's actor tests.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Accumulator, ActorError, SerializationError, thisHost, type ProcMesh } from "../../src/mesh.ts";
import { BrokenConstructor, Counter, Driver, Echo, Failer, InternalNames, PlainAdder, Slicer } from "../fixtures/actors.ts";
import { track } from "../helpers.ts";

describe("ActorMesh over {gpus: 2}", () => {
  let procs: ProcMesh;
  before(() => {
    procs = track(thisHost().spawnProcs({ gpus: 2 }));
  });
  after(() => procs.stop());

  it("broadcasts, chooses one rank, and streams every rank", async () => {
    const counters = procs.spawn("counters", Counter, 3);
    counters.incr.broadcast();
    assert.equal(await counters.get.choose(), 4);
    let sum = 0;
    for await (const v of counters.get.stream()) sum += v;
    assert.equal(sum, 8);
  });

  it("accumulates replies", async () => {
    const counters = procs.spawn("acc", Counter, 1);
    counters.incr.broadcast();
    const acc = new Accumulator(counters.get, 0, (a, b) => a + b);
    assert.equal(await acc.accumulate(), 4);
  });

  it("starts every accumulate() from a fresh identity, even when combine mutates it", async () => {
    const counters = procs.spawn("acc-fresh", Counter, 1);
    const count = new Accumulator(counters.get, { n: 0 }, (acc, _v) => ((acc.n += 1), acc));
    assert.deepEqual(await count.accumulate(), { n: 2 });
    assert.deepEqual(await count.accumulate(), { n: 2 });
    const factory = new Accumulator(
      counters.get,
      () => [] as number[],
      (acc, v) => (acc.push(v), acc),
    );
    assert.deepEqual(await factory.accumulate(), [1, 1]);
    assert.deepEqual(await factory.accumulate(), [1, 1]);
    class Sum {
      total = 0;
    }
    assert.throws(
      () => new Accumulator(counters.get, new Sum(), (acc, v) => ((acc.total += v), acc)),
      /cannot copy its identity, a Sum, .*pass a factory instead/,
    );
  });

  it("gives each rank its message rank and the message extent", async () => {
    const counters = procs.spawn("ranks", Counter, 0);
    assert.equal(await new Accumulator(counters.gpuRank, 0, (a, b) => a + b).accumulate(), 1);
    assert.equal(await new Accumulator(counters.gpuCount, 0, (a, b) => a + b).accumulate(), 4);
  });

  it("answers through an explicit response port", async () => {
    const counters = procs.spawn("ports", Counter, 0);
    assert.equal(await counters.slice({ gpus: 1 }).add.callOne(2), 5);
    const adders = procs.spawn("plain", PlainAdder);
    assert.deepEqual((await adders.addTo.call(2, 3)).values(), [5, 5]);
  });

  it("returns a ValueMesh addressed by rank and coordinates", async () => {
    const counters = procs.spawn("values", Counter, 7);
    const values = await counters.get.call();
    assert.equal(values.size, 2);
    assert.deepEqual(values.extent.labels, ["gpus"]);
    assert.equal(values.get(1), 7);
    assert.equal(values.item({ gpus: 0 }), 7);
    assert.deepEqual([...values], [7, 7]);
    assert.deepEqual(
      [...values.items()].map(([p, v]) => [p.rank, p.coords.gpus, v]),
      [
        [0, 0, 7],
        [1, 1, 7],
      ],
    );
    assert.deepEqual(values.slice({ gpus: 1 }).values(), [7]);
  });

  it("rejects with ActorError carrying the remote error; the actor survives", async () => {
    const failers = procs.spawn("failers", Failer);
    const err = await failers
      .slice({ gpus: 0 })
      .boom.callOne("bad input")
      .catch((e: unknown) => e);
    assert.ok(err instanceof ActorError, `expected ActorError, got ${err}`);
    assert.match(err.message, /^Failer\.boom failed on rank 0 \{gpus: 0\} of mesh failers: RangeError: bad input$/);
    const remote = err.cause as Error;
    assert.equal(remote.name, "RangeError");
    assert.equal(remote.message, "bad input");
    assert.match(remote.stack ?? "", /at Failer\.boom/);
    assert.equal((remote.cause as Error).message, "the root cause");
    assert.equal(await failers.slice({ gpus: 0 }).ok.callOne(), 2);
    await assert.rejects(failers.asyncBoom.call("async bad"), (e: Error) => e instanceof ActorError && /async bad/.test(e.message));
    assert.deepEqual((await failers.ok.call()).values(), [4, 2]);
  });

  it("an error through a one-rank slice names the rank and coords in the spawned mesh", async () => {
    const failers = procs.spawn("sliced-failers", Failer);
    const err = await failers
      .slice({ gpus: 1 })
      .boom.callOne("on one")
      .catch((e: unknown) => e);
    assert.ok(err instanceof ActorError, `expected ActorError, got ${err}`);
    assert.equal(err.message, "Failer.boom failed on rank 1 {gpus: 1} of mesh sliced-failers: RangeError: on one");
    assert.equal(err.rank, 1);
    assert.deepEqual(err.coords, { gpus: 1 });
    const viaRange = await failers
      .slice({ gpus: { start: 1 } })
      .boom.call("in range")
      .catch((e: unknown) => e);
    assert.match(String(viaRange), /failed on rank 1 \{gpus: 1\} of mesh sliced-failers/);
  });

  it("call() rejects with the first error in rank order", async () => {
    const failers = procs.spawn("ordered", Failer);
    await assert.rejects(failers.boom.call("x"), (e: ActorError) => e.rank === 0);
  });

  it("passes values of every kind through an actor and back", async () => {
    const echo = procs.spawn("echo", Echo).slice({ gpus: 0 });
    const value = {
      n: 1.5,
      big: 2n ** 80n,
      s: "ü",
      date: new Date(0),
      map: new Map<unknown, unknown>([[1, { a: [1, 2] }]]),
      set: new Set(["x"]),
      f64: new Float64Array([1, 2, 3]),
      bytes: new Uint8Array(5000).fill(7),
      nested: [null, undefined, true],
    };
    assert.deepEqual(await echo.echo.callOne(value), value);
  });

  it("reports a constructor failure through initialized and later calls", async () => {
    const broken = procs.spawn("broken", BrokenConstructor);
    await assert.rejects(broken.initialized, /constructor refused/);
    await assert.rejects(broken.get.call(), /failed to start: constructor refused/);
  });

  it("context() names the actor and survives await", async () => {
    const drivers = procs.spawn("drivers", Driver);
    const me = await drivers.slice({ gpus: 1 }).whoAmI.callOne();
    assert.equal(me.name, "drivers");
    assert.equal(me.className, "Driver");
    assert.equal(me.rank, 1);
    assert.equal(me.messageRank, 0);
    assert.deepEqual((await drivers.rankAfterAwait.call()).values(), [0, 1]);
  });
});

describe("bad input at the call site", () => {
  let procs: ProcMesh;
  before(() => {
    procs = track(thisHost().spawnProcs({ gpus: 2 }));
  });
  after(() => procs.stop());

  it("a non-serialisable argument throws and sends nothing", async () => {
    const counters = procs.spawn("c", Counter, 0);
    assert.throws(
      () => counters.incr.broadcast((() => 1) as unknown as number),
      (e: Error) => e instanceof SerializationError && /argument 1 of Counter\.incr: the function cannot be sent/.test(e.message),
    );
    assert.throws(() => counters.incr.call(Symbol("s") as unknown as number), /argument 1 of Counter\.incr: the symbol Symbol\(s\) cannot be sent/);
    assert.deepEqual((await counters.get.call()).values(), [0, 0]);
  });

  it("an unknown endpoint throws naming the real ones", () => {
    const counters = procs.spawn("u", Counter, 0);
    assert.throws(
      () => (counters as unknown as Record<string, unknown>).nope,
      /Counter has no endpoint 'nope'; its endpoints are: add, get, gpuCount, gpuRank, incr/,
    );
  });

  it("too few arguments throws", () => {
    const adders = procs.spawn("few", PlainAdder);
    assert.throws(() => (adders.addTo.call as (...a: unknown[]) => unknown)(1), /PlainAdder\.addTo expects at least 2 arguments, got 1/);
  });

  it("callOne on a mesh of size 2 throws naming the size", () => {
    const counters = procs.spawn("one", Counter, 0);
    assert.throws(() => counters.get.callOne(), /mesh of size 2/);
  });

  it("endpoints named like mesh internals (id, shape, ref, stopped, …) reach the actor", async () => {
    const mesh = procs.spawn("internal-names", InternalNames);
    for (const name of ["id", "shape", "ref", "stopped", "className", "endpoint", "mesh"] as const) {
      assert.deepEqual((await mesh[name].call()).values(), [`${name} endpoint`, `${name} endpoint`], name);
    }
    assert.equal(await mesh.slice({ gpus: 1 }).shape.callOne(), "shape endpoint");
    assert.equal(mesh.size, 2);
  });

  it("spawn refuses an endpoint named like a mesh member, naming the method and the fix", () => {
    assert.throws(
      () => procs.spawn("slicers", Slicer),
      (e: Error) =>
        e instanceof TypeError &&
        /^Slicer\.slice cannot be an endpoint: 'slice' is a member of every actor mesh \(.*\bstop\b.*\), so calls would never reach the method; rename Slicer\.slice$/.test(
          e.message,
        ),
    );
  });

  it("a non-serialisable return value rejects the caller", async () => {
    const echo = procs.spawn("ret", Echo);
    await assert.rejects(echo.unsendable.call(), /the function f at \.f cannot be sent/);
  });
});
