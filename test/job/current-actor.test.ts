// currentActor() on every backend where a job's actors run (sync, threads, processes):
// its handle, its place in a group, fail() with and without maxRestarts, and the
// shutdown signal — the same assertions on each.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createJobContext, currentActor, type JobContext } from "../../src/job.ts";
import { Introspect } from "../fixtures/client-actors.ts";

const NOT_AN_ACTOR = /currentActor\(\) is for the constructor and methods of an actor made by createActor or createActorGroup; this code runs /;

for (const kind of ["sync", "threads", "processes"] as const) {
  describe(`currentActor() on ${kind}`, () => {
    let ctx: JobContext;
    before(() => {
      ctx = createJobContext(kind, kind === "sync" ? {} : { maxWorkers: 2 });
    });
    after(() => ctx.shutdown());

    it("an actor made alone is index 0 of a group of its name (or its class's), in its constructor and its methods", async () => {
      const named = await ctx.createActor(Introspect, [], { name: `solo-${kind}` });
      assert.deepEqual(await ctx.get(named.place.remote()), { index: 0, groupName: `solo-${kind}`, sameInMethod: true });
      const unnamed = await ctx.createActor(Introspect, []);
      assert.deepEqual(await ctx.get(unnamed.place.remote()), { index: 0, groupName: "Introspect", sameInMethod: true });
    });

    it("group members know their index and the group's name", async () => {
      const group = ctx.createActorGroup(Introspect, [], 3, { name: `crew-${kind}` });
      await group.waitReady();
      const places = await ctx.get(group.all.place.remote());
      assert.deepEqual(
        places,
        [0, 1, 2].map((index) => ({ index, groupName: `crew-${kind}`, sameInMethod: true })),
      );
      const unnamed = ctx.createActorGroup(Introspect, [], 2);
      await unnamed.waitReady();
      assert.deepEqual(
        (await ctx.get(unnamed.all.place.remote())).map((p) => p.groupName),
        ["Introspect", "Introspect"],
      );
    });

    it("handle is the actor's own: the caller gets it back and calls the same actor through it", async () => {
      const actor = await ctx.createActor(Introspect, []);
      assert.equal(await ctx.get(actor.bump.remote()), 1);
      const self = await ctx.get(actor.self.remote());
      assert.equal(await ctx.get(self.bump.remote()), 2, "the same instance: its count goes on");
      assert.equal(await ctx.get(actor.bump.remote()), 3);
    });

    it("fail() without maxRestarts ends the actor: that call and later ones reject with its error", async () => {
      const actor = await ctx.createActor(Introspect, []);
      assert.equal(await ctx.get(actor.bump.remote()), 1);
      await assert.rejects(ctx.get(actor.failNow.remote("bad shard 3")), /bad shard 3/);
      await assert.rejects(ctx.get(actor.bump.remote()), /bad shard 3/);
    });

    it("fail() with maxRestarts 1: constructed again (fresh state) once; the second fail() ends it naming maxRestarts", async () => {
      const actor = await ctx.createActor(Introspect, [], { maxRestarts: 1 });
      assert.equal(await ctx.get(actor.bump.remote()), 1);
      assert.equal(await ctx.get(actor.bump.remote()), 2);
      await assert.rejects(ctx.get(actor.failNow.remote("diverged")), /diverged/);
      assert.equal(await ctx.get(actor.bump.remote()), 1, "restarted: state from the constructor");
      assert.deepEqual(await ctx.get(actor.place.remote()), { index: 0, groupName: "Introspect", sameInMethod: true });
      await assert.rejects(ctx.get(actor.failNow.remote("diverged again")), /diverged again/);
      await assert.rejects(ctx.get(actor.bump.remote()), (e: Error) => /maxRestarts 1/.test(e.message) && /diverged again/.test(e.message));
    });

    it("shutdownSignal aborts when the actor is killed, so a call waiting on it ends and answers", async () => {
      const name = `waiter-${kind}`;
      const actor = await ctx.createActor(Introspect, [], { name, maxConcurrency: 2 });
      const waiting = ctx.get(actor.untilShutdown.remote());
      assert.equal(await ctx.get(actor.entered.remote()), true);
      await ctx.killActor(name);
      assert.match(await waiting, /^saw shutdown: /);
    });

    it("is refused outside an actor: in the driver, and in a task an actor's method runs", async () => {
      assert.throws(() => currentActor(), NOT_AN_ACTOR);
      const actor = await ctx.createActor(Introspect, []);
      assert.match(await ctx.get(actor.fromTask.remote()), NOT_AN_ACTOR);
    });
  });
}
