// The namespace service's dashboard after a Client's actors end, on a local cluster: an actor that its client shut
// down cleanly is no failure, and one whose process was killed is one row, named by the actor's own name (not the
// namespace's internal mesh names, nor twice).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createClient, type Client } from "../../src/cluster.ts";
import { pollUntil } from "../../src/runtime/base/poll.ts";
import type { FailureRow } from "../../src/cluster/dashboard/failures.ts";
import { Introspect } from "../fixtures/client-actors.ts";
import { clusterFixture } from "./cluster-suite.ts";

describe("the namespace dashboard's failures", () => {
  let client: Client;
  after(() => client?.shutdown());
  const fx = clusterFixture("local");
  before(() => {
    client = createClient(fx.spec);
  });

  async function failures(): Promise<FailureRow[]> {
    const { dashboard } = await fx.cluster.namespace();
    const res = await fetch(new URL("api/failures", dashboard.endsWith("/") ? dashboard : `${dashboard}/`), {
      headers: { authorization: `Bearer ${fx.cluster.token()}` },
    });
    assert.equal(res.status, 200);
    return ((await res.json()) as { failures: FailureRow[] }).failures;
  }

  it("a client's actors that ended cleanly are not failures; a killed one is one row under its name", { timeout: 120_000 }, async () => {
    const first = createClient(fx.spec);
    for (const name of ["clean-a", "clean-b"]) {
      const actor = await first.createActor(Introspect, [], { name });
      assert.equal(await first.get(actor.ping.remote()), "pong");
    }
    await first.shutdown(); // ends its ephemeral actors: their processes exit with code 0
    await pollUntil(async () => !(await fx.cluster.listActors()).some((a) => a.name?.startsWith("clean-")), {
      intervalMs: 50,
      deadlineMs: 60_000,
      bound: "the test's bound",
      what: "the clean actors to leave the namespace",
    });
    const doomed = await client.createActor(Introspect, [], { name: "doomed" });
    assert.equal(await client.get(doomed.ping.remote()), "pong");
    const { pid } = (await fx.cluster.listActors()).find((a) => a.name === "doomed")!;
    process.kill(pid!, "SIGKILL");
    const rows = await pollUntil(
      async () => {
        const rows = await failures();
        return rows.some((r) => r.what.includes("doomed")) && rows;
      },
      { intervalMs: 100, deadlineMs: 60_000, bound: "the test's bound", what: "the killed actor's failure on the dashboard" },
    );
    const shown = rows.map((r) => `${r.what}: ${r.message}`);
    assert.deepEqual(
      rows.filter((r) => r.what.includes("doomed")).map((r) => r.what),
      ["actor 'doomed'"],
      shown.join("\n"),
    );
    assert.ok(!rows.some((r) => /exited with code 0/.test(r.message)), shown.join("\n"));
    assert.ok(!rows.some((r) => /\bns-/.test(r.what) || r.what.includes("clean-")), shown.join("\n"));
  });
});
