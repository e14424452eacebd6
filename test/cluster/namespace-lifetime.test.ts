// A cluster's namespace service ends by itself once idle for FRAY_NAMESPACE_IDLE_MS
// (no job, no hosted actor, no client) or once its state directory is gone, and at
// `fray cluster stop`, which asks it with the cluster's token. Real service
// processes, jobs, actors and clients; every wait is on a process's exit.
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { it, type TestContext } from "node:test";
import { createCluster, Entrypoint, type Cluster } from "../../src/cluster.ts";
import { bumpNamed } from "../fixtures/namespace-actors.ts";
import { isAlive, waitForExit } from "../helpers.ts";
import { nodeScript } from "./cluster-suite.ts";

// Every service these tests start inherits it.
process.env.FRAY_NAMESPACE_IDLE_MS = "1000";

const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const clusterModule = fileURLToPath(new URL("../../src/cluster.ts", import.meta.url));

/** A local cluster on a fresh state dir; what it started, and the dir, go when the test ends. */
function localCluster(t: TestContext): { cluster: Cluster; dir: string; log: () => string } {
  const dir = mkdtempSync(join(tmpdir(), "fray-ns-lifetime-"));
  const cluster = createCluster(`local?dir=${dir}`);
  t.after(async () => {
    for (const job of await cluster.listJobs()) if (job.status === "running" || job.status === "pending") await cluster.terminate(job.jobId);
    await cluster.stopNamespace();
    rmSync(dir, { recursive: true, force: true });
  });
  return { cluster, dir, log: () => readFileSync(join(dir, "local", "namespace", "service.log"), "utf8") };
}

/** `fray cluster stop --cluster SPEC`, as a user types it. */
function clusterStop(spec: string, env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [bin, "cluster", "stop", "--cluster", spec], {
    encoding: "utf8",
    timeout: 60_000,
    killSignal: "SIGKILL",
    env: { ...process.env, ...env },
  });
}

/** A process that connects to the cluster's namespace service (started if need be; it lists its actors) and stays until killed. */
async function connectedClient(t: TestContext, spec: string): Promise<{ child: ChildProcess; servicePid: number }> {
  const script =
    `const { createCluster } = await import(${JSON.stringify(clusterModule)}); const cluster = createCluster(${JSON.stringify(spec)});` +
    `const { pid } = await cluster.namespace(); await cluster.listActors(); console.log(pid); process.stdin.resume();`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["pipe", "pipe", "inherit"] });
  t.after(() => child.kill("SIGKILL"));
  const [line] = (await once(child.stdout!, "data")) as [Buffer];
  return { child, servicePid: Number(line.toString().trim()) };
}

/** Starts a namespace service with nothing to do and resolves once it has exited (so more than the idle time has passed). */
async function idleServiceEnds(t: TestContext): Promise<number> {
  const { cluster, log } = localCluster(t);
  const { pid } = await cluster.namespace();
  const started = Date.now();
  await waitForExit([pid]);
  assert.match(log(), new RegExp(`fray namespace service \\(pid ${pid}\\) exits: idle for FRAY_NAMESPACE_IDLE_MS=1000`));
  assert.equal(await cluster.runningNamespace(), null);
  return Date.now() - started;
}

it("an idle namespace service exits by itself; one with a detached actor, a client, a dashboard page or a running job stays until that ends", async (t) => {
  // Four services with something to do…
  const withActor = localCluster(t);
  const made = await withActor.cluster.launch({ name: "make", entrypoint: Entrypoint.fromCallable(bumpNamed, ["keeper", "detached"]) });
  assert.equal((await withActor.cluster.wait(made)).status, "succeeded"); // the job, and its connection, are gone
  const actorPid = Number(/keeper calls=1 pid=(\d+)/.exec((await withActor.cluster.logs(made)).join("\n"))![1]);
  const withActorPid = (await withActor.cluster.namespace()).pid;

  const withClient = localCluster(t);
  const { child: client, servicePid: withClientPid } = await connectedClient(t, withClient.cluster.spec);

  const withJob = localCluster(t);
  const release = join(withJob.dir, "release");
  const running = await withJob.cluster.launch({
    name: "runs",
    entrypoint: nodeScript(`const t = setInterval(() => { if (require("fs").existsSync(${JSON.stringify(release)})) clearInterval(t); }, 20)`),
  });
  const withJobPid = (await withJob.cluster.namespace()).pid;

  const withPage = localCluster(t);
  const { pid: withPagePid, dashboard, token: pageToken } = await withPage.cluster.namespace();
  const page = new AbortController();
  t.after(() => page.abort());
  const events = await fetch(`${dashboard}/api/events`, { headers: { authorization: `Bearer ${pageToken}` }, signal: page.signal });
  assert.equal(events.status, 200); // a page following its dashboard's updates, until it is closed
  const reading = events.body!.pipeTo(new WritableStream()).catch(() => {});

  // …and two with nothing, one after the other: once both have ended, the four have been up past the idle time twice over.
  const took = [await idleServiceEnds(t), await idleServiceEnds(t)];
  t.diagnostic(`idle services exited ${took.join(" and ")} ms after they started (FRAY_NAMESPACE_IDLE_MS=1000)`);
  assert.deepEqual([withActorPid, withClientPid, withJobPid, withPagePid].map(isAlive), [true, true, true, true]);

  // Each ends once what kept it is gone.
  writeFileSync(release, "");
  assert.equal((await withJob.cluster.wait(running)).status, "succeeded");
  await waitForExit([withJobPid]);
  assert.match(withJob.log(), /exits: idle for FRAY_NAMESPACE_IDLE_MS=1000/);

  client.kill("SIGKILL");
  await waitForExit([withClientPid]);
  assert.match(withClient.log(), /exits: idle for FRAY_NAMESPACE_IDLE_MS=1000/);

  page.abort();
  await reading;
  await waitForExit([withPagePid]);
  assert.match(withPage.log(), /exits: idle for FRAY_NAMESPACE_IDLE_MS=1000/);

  // A detached actor stays until it is killed or the service is stopped: fray cluster stop, with the cluster's token.
  const tokenFile = withActor.cluster.tokenFile;
  const token = readFileSync(tokenFile, "utf8");
  writeFileSync(tokenFile, "0".repeat(64));
  const refused = clusterStop(withActor.cluster.spec, { FRAY_TERMINATE_GRACE_MS: "1000" });
  writeFileSync(tokenFile, token);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, new RegExp(`fray cluster stop: the namespace service \\(pid ${withActorPid}\\) at tcp://\\S+ refused to stop: `));
  assert.ok(isAlive(withActorPid), "a caller without the token cannot stop it");
  const stopped = clusterStop(withActor.cluster.spec);
  assert.equal(stopped.status, 0, stopped.stderr);
  assert.equal(stopped.stdout.trim(), `stopped the namespace service of cluster ${withActor.cluster.spec} (pid ${withActorPid})`);
  await waitForExit([withActorPid, actorPid]); // its detached actor ended with it
  assert.match(withActor.log(), new RegExp(`exits: stopped by pid \\d+`));
  const again = clusterStop(withActor.cluster.spec);
  assert.equal(again.status, 0, again.stderr);
  assert.equal(again.stdout.trim(), `the namespace service of cluster ${withActor.cluster.spec} is not running`);
});

it("a namespace service whose state directory is removed exits, ending the actors it hosts", async (t) => {
  const { cluster, dir } = localCluster(t);
  const made = await cluster.launch({ name: "make", entrypoint: Entrypoint.fromCallable(bumpNamed, ["keeper", "detached"]) });
  assert.equal((await cluster.wait(made)).status, "succeeded");
  const actorPid = Number(/keeper calls=1 pid=(\d+)/.exec((await cluster.logs(made)).join("\n"))![1]);
  const { pid } = await cluster.namespace();
  const log = readFileSync(join(dir, "local", "namespace", "service.log"), "utf8"); // its start; the rest goes with the dir
  assert.match(log, new RegExp(`fray namespace service at tcp://\\S+ \\(pid ${pid}\\)`));
  rmSync(dir, { recursive: true, force: true });
  await waitForExit([pid, actorPid]);
});

it("FRAY_NAMESPACE_IDLE_MS below its least is refused as the service starts, naming the setting", async (t) => {
  const { cluster } = localCluster(t);
  process.env.FRAY_NAMESPACE_IDLE_MS = "10";
  try {
    await assert.rejects(
      cluster.namespace(),
      /the namespace service exited with code 1 as it started: .*FRAY_NAMESPACE_IDLE_MS=10 is less than the least allowed, 1000/,
    );
  } finally {
    process.env.FRAY_NAMESPACE_IDLE_MS = "1000";
  }
});
