// Ordering and routing: FIFO per sender→receiver (also through broadcast
// fan-out), one message at a time per actor, ports passed as arguments, and
// actors calling meshes they were given.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Channel, thisHost, type ProcMesh } from "../../src/mesh.ts";
import { Counter, Driver, Recorder, Sequencer } from "../fixtures/actors.ts";
import { track } from "../helpers.ts";

describe("ordering", () => {
  let procs: ProcMesh;
  before(() => {
    procs = track(thisHost().spawnProcs({ gpus: 2 }));
  });
  after(() => procs.stop());

  it("an actor sends 0..99 to a port it was given; they arrive in order", async () => {
    const drivers = procs.spawn("senders", Driver);
    const [port, receiver] = Channel.open<number>();
    drivers.slice({ gpus: 1 }).sendRange.broadcast(port, 100);
    const got: number[] = [];
    for (let i = 0; i < 100; i++) got.push(await receiver.recv());
    receiver.close();
    assert.deepEqual(
      got,
      Array.from({ length: 100 }, (_, i) => i),
    );
  });

  it("an actor receives a mesh of other actors and calls them", async () => {
    const counters = procs.spawn("counted", Counter, 2);
    const drivers = procs.spawn("summers", Driver);
    assert.deepEqual((await drivers.sumOf.call(counters)).values(), [4, 4]);
  });

  it("10,000 broadcasts from one client arrive in order at every rank", async () => {
    const recorders = procs.spawn("from-client", Recorder);
    for (let i = 0; i < 10_000; i++) recorders.record.broadcast(i);
    assert.deepEqual((await recorders.inOrder.call(10_000)).values(), [true, true]);
  });

  it("10,000 broadcasts from an actor in another process arrive in order, sent directly", async () => {
    await using others = track(thisHost().spawnProcs({ gpus: 2 }));
    const recorders = others.spawn("from-actor", Recorder);
    const driver = procs.spawn("fan", Driver).slice({ gpus: 0 });
    assert.deepEqual(await driver.fanOut.callOne(recorders, 10_000), [true, true]);
  });

  it("runs one message at a time, async endpoints included", async () => {
    const seq = procs.spawn("seq", Sequencer).slice({ gpus: 0 });
    for (let i = 0; i < 5; i++) seq.step.broadcast(i);
    const history = await seq.history.callOne();
    assert.deepEqual(
      history,
      [0, 1, 2, 3, 4].flatMap((i) => [`start ${i}`, `end ${i}`]),
    );
  });

  it("a concurrent endpoint runs while another is still waiting", async () => {
    const seq = procs.spawn("conc", Sequencer).slice({ gpus: 1 });
    const waiting = seq.waitForRelease.callOne();
    // release() may arrive before waitForRelease parked its gate; retry until it opens it.
    while (!(await seq.release.callOne()));
    assert.equal(await waiting, "released");
  });
});

describe("Port.send", () => {
  it("throws at once for a value that cannot be sent", () => {
    const [port, receiver] = Channel.open<unknown>();
    assert.throws(() => port.send({ f: () => 1 }), /the function f at \.f cannot be sent/);
    receiver.close();
  });
});
