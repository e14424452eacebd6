// The Client on the test Slurm (run on its submit host by slurm.test.ts, as
// slurm-cases.ts is), in a process of its own as a user's client is: a process
// keeps the first token it uses, and the cases in slurm-cases.ts use others.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createClient, Entrypoint } from "../../src/cluster.ts";
import { clusterFixture } from "./cluster-suite.ts";
import { Board, postTo } from "../fixtures/client-actors.ts";

describe("Client on slurm", () => {
  const fx = clusterFixture("slurm");

  it("submit → JobHandle streams a node's lines; a job on a node posts to a Board the client hosts on the submit host", async (t) => {
    const client = createClient(fx.spec);
    t.after(() => client.shutdown()); // before the fixture stops the namespace service
    const board = await client.hostActor(Board, [], { name: "slurm-board" });
    const job = await client.submit({ name: "poster", entrypoint: Entrypoint.fromCallable(postTo, ["slurm-board", "from-a-node"]) });
    const lines: string[] = [];
    assert.equal(await job.wait({ timeout: 240, streamLogs: (line) => lines.push(line) }), "succeeded");
    assert.ok(
      lines.some((l) => l.startsWith("[replica-0] posted from-a-node")),
      lines.join("\n"),
    );
    assert.deepEqual(await client.get(board.handle.read.remote()), ["from-a-node"]);
    assert.equal((await fx.cluster.listActors()).find((r) => r.name === "slurm-board")?.pid, process.pid);
  });
});
