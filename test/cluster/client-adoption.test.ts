// Adopting a job by its name, as Marin's Fray does, on a local cluster with real job processes: concurrent submits
// of one name start one job (the name is held under a lock in the cluster's state directory while it is checked and
// the job started), and a request that differs from the running job's is refused, saying what differs and what to do.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createClient, JobAlreadyExistsError, JobHandle, type Client, type JobRequest } from "../../src/cluster.ts";
import { clusterFixture, nodeScript } from "./cluster-suite.ts";

describe("Client adoption on a local cluster", () => {
  let client: Client;
  after(() => client?.shutdown());
  const fx = clusterFixture("local");
  before(() => {
    client = createClient(fx.spec);
  });

  /** A job that runs until `go` exists. */
  const until = (go: string) => nodeScript(`const fs = require("fs"); setInterval(() => { if (fs.existsSync(${JSON.stringify(go)})) process.exit(0); }, 20)`);

  it("two concurrent submits of one request start one job, and both get its handle", async () => {
    const go = join(fx.dir, "go-train");
    const request: JobRequest = { name: "train", entrypoint: until(go), resources: { cpu: 1 } };
    const [a, b, c] = await Promise.all([client.submit(request), client.submit(request), fx.cluster.launch(request)]);
    assert.equal(b.jobId, a.jobId);
    assert.equal(c, a.jobId);
    const trains = (await fx.cluster.listJobs()).filter((j) => j.name === "train");
    assert.deepEqual(
      trains.map((j) => j.jobId),
      [a.jobId],
    );
    writeFileSync(go, "");
    assert.equal(await a.wait(), "succeeded");
  });

  it("a request that differs from the running job of that name is refused, naming what differs and how to go on", async () => {
    const go = join(fx.dir, "go-serve");
    const running = await client.submit({ name: "serve", entrypoint: until(go), resources: { cpu: 1 }, environment: { envVars: { SEED: "1" } } });
    const err: unknown = await client
      .submit({ name: "serve", entrypoint: nodeScript("console.log('v2')"), resources: { cpu: 2 }, environment: { envVars: { SEED: "2" } } })
      .catch((e: unknown) => e);
    assert.ok(err instanceof JobAlreadyExistsError, String(err));
    assert.ok(err.handle instanceof JobHandle);
    assert.equal(err.handle.jobId, running.jobId);
    assert.match(err.message, /a job named serve is already running/);
    assert.match(err.message, /entrypoint: .*console\.log\('v2'\)/);
    assert.match(err.message, /resources: was 1 cpu, now 2 cpu/);
    assert.match(err.message, /envVars: SEED differs/);
    assert.match(err.message, /submit the same request to adopt it, wait for it or terminate it .* and submit again, or pick another name/);
    assert.doesNotMatch(err.message, /SEED=|"1"|"2"/, "env values are not shown: they may be secrets");
    assert.equal((await fx.cluster.listJobs()).filter((j) => j.name === "serve").length, 1, "nothing else started");
    // The same request is adopted.
    const same = await client.submit({ name: "serve", entrypoint: until(go), resources: { cpu: 1 }, environment: { envVars: { SEED: "1" } } });
    assert.equal(same.jobId, running.jobId);
    writeFileSync(go, "");
    assert.equal(await running.wait(), "succeeded");
  });
});
