// Values across real process and thread boundaries: BigInts beyond 64 bits,
// replies that cannot be decoded, errors that keep their class, shared memory
// returned from a thread, and circular arguments refused before sending.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { ActorError, Channel, DecodingError, SerializationError, SupervisionError, thisHost, type ProcMesh } from "../../src/mesh.ts";
import { Counter, Echo } from "../fixtures/actors.ts";
import { identity, OddReplier, overQuota, Quota, QuotaError, SharedHolder } from "./wire-values-actors.ts";
import { track } from "../helpers.ts";

describe("values across processes", () => {
  let procs: ProcMesh;
  let ctx: JobContext;
  before(() => {
    procs = track(thisHost().spawnProcs({ workers: 1 }));
    ctx = createJobContext("processes", { maxWorkers: 1 });
  });
  after(async () => {
    await ctx.shutdown();
    await procs.stop();
  });

  it("ctx.run(identity, 2n ** 70n) on a processes context returns the BigInt", async () => {
    assert.equal(await ctx.get(ctx.run(identity, 2n ** 70n)), 2n ** 70n);
    assert.deepEqual(await ctx.get(ctx.run(identity, [-(2n ** 70n), 5n])), [-(2n ** 70n), 5n]);
    assert.equal(await ctx.get(ctx.run(identity, ctx.put(2n ** 65n))), 2n ** 65n);
  });

  it("an actor echo through a mesh returns a BigInt beyond 64 bits", async () => {
    const echo = procs.spawn("echo", Echo);
    assert.equal(await echo.echo.callOne(2n ** 70n), 2n ** 70n);
  });

  it("a reply the client cannot decode is a DecodingError naming the endpoint and sender, not the rank's failure", async () => {
    const odd = procs.spawn("odd", OddReplier);
    await assert.rejects(
      odd.odd.callOne(),
      (e: Error) =>
        e instanceof DecodingError &&
        !(e instanceof ActorError) &&
        /^cannot decode the reply of OddReplier\.odd from rank 0 \{workers: 0\} of mesh odd, sent by \S+: Unknown extension (type )?94\. Both sides must run the same version of fray/.test(
          e.message,
        ),
    );
    assert.equal(await odd.fine.callOne(), 2, "the actor itself is fine");
  });

  it("a QuotaError thrown in a task arrives as a QuotaError with its own field, message, stack and cause", async () => {
    for (const kind of ["sync", "threads", "processes"] as const) {
      const jobs = kind === "processes" ? ctx : createJobContext(kind, { maxWorkers: 1 });
      try {
        await assert.rejects(jobs.get(jobs.run(overQuota, 3)), (e: Error) => {
          assert.ok(e instanceof QuotaError, `${kind}: ${e.constructor.name}`);
          assert.equal(e.limit, 3);
          assert.equal(e.message, "over the quota of 3");
          assert.match(e.stack ?? "", /at overQuota .*wire-values-actors\.ts/);
          assert.ok(e.cause instanceof RangeError);
          return true;
        });
      } finally {
        if (jobs !== ctx) await jobs.shutdown();
      }
    }
  });

  it("a QuotaError thrown in a mesh endpoint is the ActorError's cause, as a QuotaError", async () => {
    const quota = procs.spawn("quota", Quota);
    await assert.rejects(
      quota.spend.callOne(5),
      (e: Error) =>
        e instanceof ActorError &&
        e.cause instanceof QuotaError &&
        e.cause.limit === 5 &&
        /Quota\.spend failed on rank 0 \{workers: 0\} of mesh quota: QuotaError: over the quota of 5/.test(e.message),
    );
  });

  it("an error sent to a port arrives as its class, before the value sent after it", async () => {
    const quota = procs.spawn("reporter", Quota);
    const [port, received] = Channel.open<number>();
    try {
      quota.report.broadcast(port);
      await assert.rejects(received.recv(), (e: Error) => e instanceof QuotaError && e.limit === 1);
      assert.equal(await received.recv(), 7);
    } finally {
      received.close();
    }
  });

  it("an error of an unexported class arrives as an Error with its name and fields", async () => {
    const quota = procs.spawn("hidden", Quota);
    await assert.rejects(quota.hidden.callOne(), (e: Error) => {
      const cause = e.cause as Error & { detail?: string };
      return e instanceof ActorError && cause.constructor === Error && cause.name === "HiddenError" && cause.detail === "kept";
    });
  });

  it("a SupervisionError from a killed proc, returned by an actor, arrives as a SupervisionError", async () => {
    const quota = procs.spawn("prober", Quota);
    const err = await quota.errorOfKilledProc.callOne();
    assert.ok(err instanceof SupervisionError, `got ${String(err)}`);
    assert.match(err.message, /SIGKILL/);
  });

  it("an endpoint call with a circular argument throws naming the cycle, and sends nothing", async () => {
    const counters = procs.spawn("circular", Counter, 0);
    const arg: Record<string, unknown> = { a: { b: null } };
    (arg.a as Record<string, unknown>).b = arg.a;
    assert.throws(
      () => counters.incr.call(arg as unknown as number),
      (e: Error) =>
        e instanceof SerializationError &&
        /^argument 1 of Counter\.incr: a circular reference at \.a\.b back to \.a cannot be sent .*Remove the cycle before sending, or send an id/.test(
          e.message,
        ),
    );
    assert.equal(await counters.get.callOne(), 0);
  });

  it("ctx.run with a circular argument rejects naming the cycle", async () => {
    const arg: Record<string, unknown> = { a: { b: null } };
    (arg.a as Record<string, unknown>).b = arg.a;
    await assert.rejects(
      ctx.get(ctx.run(identity, arg)),
      (e: Error) => e instanceof SerializationError && /^argument 1 of identity: a circular reference at \.a\.b back to \.a cannot be sent/.test(e.message),
    );
  });
});

describe("shared memory returned from a thread proc", () => {
  let procs: ProcMesh;
  before(() => {
    procs = thisHost().spawnProcs({ workers: 1 }, { threads: true });
  });
  after(() => procs.stop());

  for (const which of ["small", "large"] as const) {
    it(`an Int32Array over a SharedArrayBuffer (${which}) returned by an endpoint stays shared both ways`, async () => {
      const holder = procs.spawn(`holder-${which}`, SharedHolder);
      const array = await holder.share.callOne(which);
      assert.ok(array.buffer instanceof SharedArrayBuffer, `arrived on a ${array.buffer.constructor.name}`);
      Atomics.store(array, 1, 41);
      assert.equal(await holder.read.callOne(which, 1), 41, "the actor sees the client's write");
      await holder.write.callOne(which, 2, 42);
      assert.equal(Atomics.load(array, 2), 42, "the client sees the actor's write");
    });
  }
});
