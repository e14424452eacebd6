// Waiting for a Client's jobs as Marin's Fray does, on a local cluster with real job processes: waitAll raises on
// the first job that fails while the others still run (collectAll waits for every one and names every failure),
// one raiseOnFailure default for JobHandle.wait, waitAll and Cluster.wait, the TimeoutError class exported, and a
// JobFailedError whose cause is the job's own error (class, message, causes) and whose message has no source excerpt.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createClient, Entrypoint, JobFailedError, TimeoutError, waitAll, type Client } from "../../src/cluster.ts";
import { failWithCause } from "../fixtures/cluster-jobs.ts";
import { clusterFixture, nodeScript } from "./cluster-suite.ts";

/** A job that runs until `go` exists, then ends with `code`. */
function runsUntil(go: string, code = 0): Entrypoint {
  return nodeScript(`const fs = require("fs"); setInterval(() => { if (fs.existsSync(${JSON.stringify(go)})) process.exit(${code}); }, 20)`);
}

/** Node prints the throwing line and a caret above an uncaught error's stack: what the message must leave out. */
const THROWS = nodeScript(
  "const shard = 7;\nif (shard === 7) throw new RangeError('no convergence', { cause: new TypeError('bad shard 7', { cause: new Error('disk full') }) });",
);

describe("Client wait semantics on a local cluster", () => {
  let client: Client;
  after(() => client?.shutdown());
  const fx = clusterFixture("local");
  before(() => {
    client = createClient(fx.spec);
  });

  it("waitAll rejects as soon as one job fails while the others still run; collectAll waits for all and names every failure", async () => {
    const go = join(fx.dir, "go-wait-all");
    const long = await client.submit({ name: "long", entrypoint: runsUntil(go) });
    const lateFailure = await client.submit({ name: "late-failure", entrypoint: runsUntil(go, 5) });
    const early = await client.submit({ name: "early", entrypoint: THROWS });
    const handles = [long, lateFailure, early];
    // The timeout only bounds a wait that would otherwise last as long as the long jobs (forever: they wait for `go`).
    const err: unknown = await waitAll(handles, { timeout: 60 }).catch((e: unknown) => e);
    assert.ok(err instanceof JobFailedError, String(err));
    assert.deepEqual(
      err.jobs.map((j) => j.jobId),
      [early.jobId],
    );
    // The event that proves it did not wait for them: they cannot end before the file is written, which is below.
    assert.equal(await long.status(), "running");
    assert.equal(await lateFailure.status(), "running");
    const collected = waitAll(handles, { collectAll: true }).catch((e: unknown) => e);
    writeFileSync(go, "");
    const all = await collected;
    assert.ok(all instanceof JobFailedError, String(all));
    assert.deepEqual(all.jobs.map((j) => j.jobId).sort(), [lateFailure.jobId, early.jobId].sort());
    assert.deepEqual(await waitAll(handles, { raiseOnFailure: false }), ["succeeded", "failed", "failed"]);
    await assert.rejects(waitAll(handles, { collectAll: "yes" } as never), /waitAll's collectAll must be true or false/);
  });

  it("JobFailedError.cause is the job's error with its causes, for a script and for a function; the message has no source excerpt", async () => {
    const script = await client.submit({ name: "script-throws", entrypoint: THROWS });
    const fn = await client.submit({ name: "function-throws", entrypoint: Entrypoint.fromCallable(failWithCause, ["no convergence", "bad shard 7"]) });
    for (const handle of [script, fn]) {
      const err: unknown = await handle.wait().catch((e: unknown) => e);
      assert.ok(err instanceof JobFailedError, String(err));
      const cause = err.cause as Error & { cause?: Error };
      assert.ok(cause instanceof Error, `${handle.jobId}: cause ${String(cause)}`);
      assert.equal(cause.name, "RangeError");
      assert.equal(cause.message, "no convergence");
      assert.equal(cause.cause?.name, "TypeError");
      assert.equal(cause.cause?.message, "bad shard 7");
      assert.match(err.message, /RangeError: no convergence/);
      assert.doesNotMatch(err.message, /shard === 7|\| \^/, "Node's excerpt of the throwing line is no part of the message");
    }
  });

  it("JobHandle.wait, waitAll and Cluster.wait all raise by default; a timeout is the exported TimeoutError", async () => {
    const fails = await client.submit({ name: "fails", entrypoint: nodeScript("process.exit(3)") });
    await assert.rejects(fails.wait(), JobFailedError);
    await assert.rejects(waitAll([fails]), JobFailedError);
    await assert.rejects(fx.cluster.wait(fails.jobId), JobFailedError);
    await assert.rejects(fx.cluster.wait([fails.jobId]), JobFailedError);
    assert.equal((await fx.cluster.wait(fails.jobId, { raiseOnFailure: false })).status, "failed");
    const go = join(fx.dir, "go-timeout");
    const slow = await client.submit({ name: "slow", entrypoint: runsUntil(go) });
    await assert.rejects(slow.wait({ timeout: 0.1 }), TimeoutError);
    await assert.rejects(waitAll([slow], { timeout: 0.1 }), TimeoutError);
    await assert.rejects(fx.cluster.wait(slow.jobId, { timeout: 0.1 }), TimeoutError);
    writeFileSync(go, "");
    assert.equal(await slow.wait(), "succeeded");
  });
});
