// maxConcurrency: up to n messages of one actor run at once (async endpoints
// interleave at their awaits), started in arrival order; the default runs one
// at a time. The evidence is the order of the events each actor reports.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Channel, thisHost, type PortReceiver, type ProcMesh } from "../../src/mesh.ts";
import { kSpawnWith } from "../../src/mesh/proc-mesh.ts";
import { Turnstile } from "../fixtures/concurrency-actors.ts";
import { track, waitForExit } from "../helpers.ts";

async function take(events: PortReceiver<string>, n: number): Promise<string[]> {
  const got: string[] = [];
  for (let i = 0; i < n; i++) got.push(await events.recv());
  return got;
}

for (const [kind, options] of [
  ["processes", {}],
  ["threads", { threads: true }],
] as const) {
  describe(`maxConcurrency (${kind})`, () => {
    /** One Turnstile on a process (or thread) of its own, spawned with `spawnOptions`. */
    async function withTurnstile(spawnOptions: { maxConcurrency?: number }, body: (t: ReturnType<typeof spawnTurnstile>) => Promise<void>): Promise<void> {
      const procs = track(thisHost().spawnProcs({ workers: 1 }, options));
      const t = spawnTurnstile(procs, spawnOptions);
      try {
        await body(t);
      } finally {
        t.events.close();
        const pids = procs.pids;
        await procs.stop();
        await waitForExit(pids);
      }
    }
    function spawnTurnstile(procs: ProcMesh, spawnOptions: { maxConcurrency?: number }) {
      const [port, events] = Channel.open<string>();
      const mesh = procs[kSpawnWith](spawnOptions, "turnstile", Turnstile, port);
      return { mesh, events };
    }

    it("maxConcurrency 4: four calls that each wait for all four to enter all finish", async () => {
      await withTurnstile({ maxConcurrency: 4 }, async ({ mesh, events }) => {
        const calls = [1, 2, 3, 4].map((i) => mesh.meet.callOne(i, 4));
        assert.deepEqual(await Promise.all(calls), [1, 2, 3, 4]);
        const order = await take(events, 8);
        // Every call entered before any left: they ran at the same time.
        assert.deepEqual(order.slice(0, 4), ["enter1", "enter2", "enter3", "enter4"]);
        assert.deepEqual(order.slice(4).sort(), ["exit1", "exit2", "exit3", "exit4"]);
      });
    });

    it("the default runs async calls one at a time: each leaves before the next enters", async () => {
      await withTurnstile({}, async ({ mesh, events }) => {
        const calls = [1, 2, 3].map((i) => mesh.step.callOne(i));
        assert.deepEqual(await Promise.all(calls), [1, 2, 3]);
        assert.deepEqual(await take(events, 6), ["enter1", "exit1", "enter2", "exit2", "enter3", "exit3"]);
      });
    });

    it("maxConcurrency 2: the third and later calls start, in order, only as earlier ones finish", async () => {
      await withTurnstile({ maxConcurrency: 2 }, async ({ mesh, events }) => {
        const releases = await mesh.releases.callOne();
        const calls = [1, 2, 3, 4, 5].map((i) => mesh.hold.callOne(i));
        assert.deepEqual(await take(events, 2), ["enter1", "enter2"]);
        // Calls 3 to 5 reached the actor before this release (one sender, in order), yet wait for a free slot.
        releases.send(2);
        assert.deepEqual(await take(events, 2), ["exit2", "enter3"]);
        releases.send(1);
        assert.deepEqual(await take(events, 2), ["exit1", "enter4"]);
        releases.send(4);
        assert.deepEqual(await take(events, 2), ["exit4", "enter5"]);
        releases.send(3);
        releases.send(5);
        assert.deepEqual(await take(events, 2), ["exit3", "exit5"]);
        assert.deepEqual(await Promise.all(calls), [1, 2, 3, 4, 5]);
      });
    });
  });
}

describe("maxConcurrency option", () => {
  it("a value that is not a whole number ≥ 1, or an unknown option, is refused naming the fix", async () => {
    await using procs = thisHost().spawnProcs({ workers: 1 }, { threads: true });
    for (const bad of [0, 1.5, -1, Number.NaN, Infinity, "2" as unknown as number]) {
      assert.throws(
        () => procs[kSpawnWith]({ maxConcurrency: bad }, "bad", Turnstile, null as never),
        (e: Error) => e instanceof RangeError && /maxConcurrency must be a whole number ≥ 1/.test(e.message) && /pass e\.g\. 4/.test(e.message),
      );
    }
    assert.throws(
      () => procs[kSpawnWith]({ maxConcurency: 2 } as never, "bad", Turnstile, null as never),
      (e: Error) => e instanceof TypeError && /unknown spawn option maxConcurency; the options are: maxConcurrency/.test(e.message),
    );
  });
});
