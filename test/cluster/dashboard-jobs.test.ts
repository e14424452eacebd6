// The dashboard of a local cluster with real jobs, in Debian's headless chromium (playwright-core):
// a binary job that throws "disk full on /data" shows that headline and its cause; a job whose tasks
// fail shows each failed task with its name, error and cause chain, newest first, linking to the job's
// page; a rank of a job's mesh killed with SIGKILL shows up with its signal; the charts have points,
// the jobs' metrics among them; fray's own meshes are hidden until the
// toggle shows them; a job's page shows its replicas, tasks, processes, meshes and a log filtered by
// replica; a report file it cannot read is listed on its job's row. A screenshot of each view goes to
// FRAY_TEST_SCREENSHOTS if set, else to the test's temp directory (removed at the end); the test prints where.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { createCluster, Entrypoint, type Cluster } from "../../src/cluster.ts";
import { kJobFiles } from "../../src/cluster/cluster.ts";
import { startDashboard, type Dashboard } from "../../src/dashboard.ts";
import { createJobContext } from "../../src/job.ts";
import { pollUntil } from "../../src/runtime/base/poll.ts";
import { echoMesh, parseShards } from "../fixtures/dashboard-jobs.ts";
import { Restartable } from "../fixtures/namespace-actors.ts";
import { testPackages } from "../../scripts/test-setup.ts";

const CHROMIUM = "/usr/bin/chromium";
const SHARDS = 8; // 4 of them fail

describe("the dashboard of a local cluster with real jobs", () => {
  const dir = mkdtempSync(join(tmpdir(), "fray-dashboard-jobs-"));
  const screenshots = process.env.FRAY_TEST_SCREENSHOTS ?? join(dir, "screenshots");
  let cluster: Cluster;
  let dashboard: Dashboard;
  let browser: Browser;
  let token: string;
  let diskJob: string;
  let killedJob: string;
  let tasksJob: string;
  let meshJob: string;
  let killed: number;

  before(async () => {
    await testPackages("chromium");
    mkdirSync(screenshots, { recursive: true });
    console.log(`# screenshots of the dashboard: ${screenshots}`);
    cluster = createCluster(`local?dir=${join(dir, "cluster")}`);
    token = cluster.token();
    diskJob = await cluster.launch({
      name: "disk",
      entrypoint: Entrypoint.fromBinary(process.execPath, ["-e", "throw new Error('disk full on /data', { cause: new Error('quota of 10 GB reached') })"]),
    });
    killedJob = await cluster.launch({ name: "oom", entrypoint: Entrypoint.fromBinary(process.execPath, ["-e", "process.kill(process.pid, 'SIGKILL')"]) });
    tasksJob = await cluster.launch({ name: "shards", entrypoint: Entrypoint.fromCallable(parseShards, [SHARDS]) });
    meshJob = await cluster.launch({
      name: "trainer",
      replicas: 2,
      entrypoint: Entrypoint.fromCallable(echoMesh, [dir]),
      environment: { envVars: { FRAY_METRICS: "1" } },
    });
    assert.equal((await cluster.wait(diskJob, { raiseOnFailure: false })).status, "failed");
    assert.equal((await cluster.wait(tasksJob, { raiseOnFailure: false })).status, "failed");
    assert.equal((await cluster.wait(killedJob, { raiseOnFailure: false })).status, "failed");
    const pidsFile = join(dir, "pids-0.json");
    await pollUntil(() => readJsonOrNull(pidsFile) !== null, { intervalMs: 50, deadlineMs: 120_000, what: () => `${pidsFile} from job ${meshJob}` });
    killed = (readJsonOrNull(pidsFile) as number[])[1];
    dashboard = await startDashboard({ token, cluster, refreshMs: 200 }); // this process's runtime takes the cluster's token
    browser = await chromium.launch({ executablePath: CHROMIUM });
  });

  after(async () => {
    try {
      await browser?.close();
      await dashboard?.close();
      if (meshJob) await cluster.terminate(meshJob);
      await cluster?.stopNamespace();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  async function signedIn(hash = ""): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
    assert.equal((await page.goto(`${dashboard.url}/?token=${token}`))?.status(), 200);
    if (hash) await page.goto(`${dashboard.url}/${hash}`);
    return page;
  }

  it("puts failures first: the failed job's error line and cause, each failed task with its name and error, newest first", async () => {
    const page = await signedIn();
    try {
      const job = await page.waitForSelector(`#failures li.failure[data-kind="job"][data-job="${diskJob}"]`);
      const text = (await job.textContent())!;
      assert.match(text, /Error: disk full on \/data/);
      assert.match(text, /quota of 10 GB reached/);
      assert.doesNotMatch(text, /at runScript|Node\.js v/, "the error line, not the stack tail");
      assert.equal(await page.textContent(`#jobs tr[data-job="${diskJob}"] .headline`), "Error: disk full on /data");
      await page.waitForFunction((n) => document.querySelectorAll(`#failures li.failure[data-kind="task"]`).length === n, SHARDS / 2);
      const task = await page.$(`#failures li.failure[data-kind="task"][data-job="${tasksJob}"]`);
      const taskText = (await task!.textContent())!;
      assert.match(taskText, /task parse-shard/);
      assert.match(taskText, /RangeError: shard \d: bad record at line 7/);
      assert.match(taskText, /SyntaxError: Unexpected token \} in JSON at position 12/);
      assert.match(taskText, /replica 0 · pid \d+/);
      const times = await page.$$eval("#failures li.failure", (items) => items.map((li) => Number(li.getAttribute("data-time"))));
      assert.ok(times.length >= 1 + SHARDS / 2);
      assert.deepEqual(
        times,
        [...times].sort((a, b) => b - a),
        "newest first",
      );
      assert.equal(await page.getAttribute(`#failures li.failure[data-job="${tasksJob}"] a`, "href"), `#/job/${tasksJob}`);
      await page.screenshot({ path: join(screenshots, "failures.png"), fullPage: true });
    } finally {
      await page.context().close();
    }
  });

  it("shows a rank of a job's mesh killed with SIGKILL, with its signal, and the job's other ranks alive", async () => {
    const page = await signedIn();
    try {
      await page.waitForSelector(`#actors tr[data-actor="trainers[1]"]`);
      process.kill(killed, "SIGKILL");
      const failure = await page.waitForSelector(`#failures li.failure[data-kind="actor"][data-job="${meshJob}"][data-mesh="trainers"][data-rank="1"]`);
      const text = (await failure.textContent())!;
      assert.match(text, /SIGKILL/);
      assert.match(text, new RegExp(`pid ${killed}`));
      // A replica killed by a signal says so: its log shows no error.
      const replica = await page.waitForSelector(`#failures li.failure[data-kind="job"][data-job="${killedJob}"]`);
      assert.match((await replica.textContent())!, /was killed by SIGKILL/);
      await page.screenshot({ path: join(screenshots, "killed-rank.png"), fullPage: true });
    } finally {
      await page.context().close();
    }
  });

  it("draws live charts with points: CPU and memory per process, and the jobs' messages (their metrics reach the cluster's dashboard)", async () => {
    const page = await signedIn();
    try {
      for (const chart of ["cpu", "rss", "messages"]) {
        await page.waitForFunction((id) => Number(document.querySelector(`svg[data-chart="${id}"] polyline`)?.getAttribute("data-points") ?? 0) >= 2, chart);
      }
      const processes = await page.$$eval(`svg[data-chart="rss"] polyline`, (lines) => lines.map((l) => l.getAttribute("data-line") ?? ""));
      assert.ok(
        processes.some((p) => p.startsWith(meshJob)),
        `a line for the job's processes: ${processes.join(", ")}`,
      );
      await page.screenshot({ path: join(screenshots, "charts.png"), fullPage: true });
    } finally {
      await page.context().close();
    }
  });

  it("hides fray's own meshes until the toggle shows them, with one row per actor and pids, not socket paths", async () => {
    const page = await signedIn();
    try {
      await page.waitForSelector(`#actors tr[data-actor="trainers[0]"]`);
      assert.equal(await page.$(`#actors tr[data-actor^="fray-"]`), null, "fray's meshes are hidden");
      assert.equal(await page.$("#actors .error"), null, "every source of the actors answered");
      const rows = await page.$$eval("#actors tbody tr", (trs) => trs.map((tr) => tr.textContent ?? ""));
      assert.ok(
        rows.every((r) => !/unix:|\.sock/.test(r)),
        rows.join("\n"),
      );
      const trainers = await page.$$eval(`#actors tr[data-actor="trainers[0]"]`, (trs) => trs.map((tr) => tr.textContent ?? ""));
      assert.equal(trainers.length, 2, "one row per replica's rank 0");
      assert.ok(trainers.every((r) => /pid \d+/.test(r)));
      await page.check("#show-internal");
      await page.waitForSelector(`#actors tr[data-actor^="fray-executors"]`);
      await page.screenshot({ path: join(screenshots, "actors-with-internal.png"), fullPage: true });
    } finally {
      await page.context().close();
    }
  });

  it("shows a job's page: replicas, tasks with the failed ones, processes, and its log filtered by replica", async () => {
    const page = await signedIn(`#/job/${tasksJob}`);
    try {
      await page.waitForSelector(`#job-replicas tr[data-replica="0"]`);
      assert.match((await page.textContent("#job-summary"))!, /failed/);
      await page.waitForSelector(`#job-tasks tr[data-task="parse-shard"]`);
      assert.match((await page.textContent("#job-tasks tbody"))!, new RegExp(`${SHARDS}\\s*0\\s*${SHARDS / 2}\\s*${SHARDS / 2}\\s*0`));
      assert.match((await page.textContent(`#job-tasks tr[data-task="parse-shard"]`))!, /RangeError: shard \d: bad record at line 7/);
      await page.waitForSelector("#job-processes tr[data-pid]");
      await page.waitForFunction(() => /shards failed/.test(document.getElementById("job-log")?.textContent ?? ""));
      await page.screenshot({ path: join(screenshots, "job-page.png"), fullPage: true });
      await page.goto(`${dashboard.url}/#/job/${meshJob}`);
      await page.waitForSelector(`#job-replicas tr[data-replica="1"]`);
      await page.waitForSelector(`#job-actors tr[data-mesh="trainers"]`);
      await page.waitForFunction(() => /\[replica-1\] trainers ready/.test(document.getElementById("job-log")?.textContent ?? ""));
      await page.selectOption("#log-replica", "1");
      await page.fill("#log-search", "trainers ready");
      assert.match((await page.textContent("#job-log"))!, /^\[replica-1\] trainers ready: pids \d+, \d+$/, "replica 1's line alone");
      await page.screenshot({ path: join(screenshots, "job-page-mesh.png"), fullPage: true });
    } finally {
      await page.context().close();
    }
  });

  it("lists a report file it cannot read on its job's row, and still shows every job", async () => {
    const { reportDir } = await cluster[kJobFiles](tasksJob);
    writeFileSync(join(reportDir!, "elsewhere-1234.json"), '{"pid": 1234, "host": "elsew'); // cut short: a full disk, another version
    const page = await signedIn();
    try {
      const note = await page.waitForSelector(`#jobs tr[data-job="${tasksJob}"] .unreadable-reports`);
      assert.match((await note.textContent())!, /^1 unreadable report file: .*elsewhere-1234\.json \(.*JSON.*\)$/);
      assert.equal((await page.$$("#jobs tr[data-job]")).length, 4);
    } finally {
      await page.context().close();
    }
  });

  it("on the cluster's namespace service, shows a named actor once (not also as the mesh that hosts it), with its pid", async () => {
    const service = await cluster.namespace();
    const ctx = createJobContext("processes", { maxWorkers: 1, namespace: service.address, token: service.token });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    try {
      const keeper = await ctx.createActor(Restartable, [], { name: "keeper" });
      const pid = await ctx.get(keeper.pid.remote());
      assert.equal((await page.goto(`${service.dashboard}/?token=${service.token}`))?.status(), 200);
      await page.waitForFunction(() => /keeper/.test(document.querySelector("#actors")?.textContent ?? ""));
      const rows = await page.$$eval("#actors tbody tr", (trs) => trs.map((tr) => tr.textContent ?? ""));
      const keepers = rows.filter((r) => r.includes("keeper"));
      assert.equal(keepers.length, 1, rows.join("\n"));
      assert.match(keepers[0], new RegExp(`Restartable.*pid ${pid}.*alive`));
      assert.ok(
        rows.every((r) => !/NamespaceActor|127\.0\.0\.1/.test(r)),
        `the service's own actor is hidden, hosts are names: ${rows.join("\n")}`,
      );
      await page.screenshot({ path: join(screenshots, "namespace-service.png"), fullPage: true });
      await page.check("#show-internal");
      await page.waitForFunction(() => /NamespaceActor/.test(document.querySelector("#actors")?.textContent ?? ""));
      const shown = await page.$$eval("#actors tbody tr", (trs) => trs.map((tr) => tr.textContent ?? ""));
      assert.equal(shown.filter((r) => r.includes("NamespaceActor")).length, 1, `the namespace actor once: ${shown.join("\n")}`);
    } finally {
      await page.close();
      await ctx.shutdown();
    }
  });
});

function readJsonOrNull(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}
