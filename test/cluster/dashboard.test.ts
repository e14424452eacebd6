// The dashboard in a real browser (Debian's headless chromium, driven by playwright-core): with the
// token it shows a live mesh's actors and a finished cluster job, and a rank killed with SIGKILL
// shows up as a failure while the page is open; without the token, or with a wrong one, the page
// shows the login form and the APIs answer 401. Screenshots go to FRAY_TEST_SCREENSHOTS if set, else
// to the test's temp directory (removed at the end); the test prints where.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { createCluster, Entrypoint, type Cluster } from "../../src/cluster.ts";
import { metricsSources, startDashboard, type Dashboard, type MetricFamily } from "../../src/dashboard.ts";
import { setUnhandledFaultHook, thisHost, type ActorMesh, type MeshFailure, type ProcMesh } from "../../src/mesh.ts";
import { Echo } from "../fixtures/actors.ts";
import { failing } from "../fixtures/tasks.ts";
import { createJobContext } from "../../src/job.ts";
import { track } from "../helpers.ts";
import { testPackages } from "../../scripts/test-setup.ts";

const CHROMIUM = "/usr/bin/chromium";
const cli = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));

describe("the dashboard in a browser", () => {
  const dir = mkdtempSync(join(tmpdir(), "fray-dashboard-"));
  const artifacts = process.env.FRAY_TEST_SCREENSHOTS ?? join(dir, "screenshots");
  let cluster: Cluster;
  let jobId: string;
  let procs: ProcMesh;
  let trainers: ActorMesh<Echo>;
  let dashboard: Dashboard;
  let browser: Browser;
  let token: string;
  const failures: MeshFailure[] = [];
  const previousHook = setUnhandledFaultHook((f) => failures.push(f)); // the killed rank is expected

  before(async () => {
    await testPackages("chromium"); // npm test's setup installed it; this file run by itself installs it too, or says how
    mkdirSync(artifacts, { recursive: true });
    console.log(`# screenshots of the dashboard: ${artifacts}`);
    cluster = createCluster(`local?dir=${dir}`);
    token = cluster.token();
    // This process talks to the cluster's namespace service too, so its meshes share the cluster's token.
    process.env.FRAY_TOKEN = token;
    procs = track(thisHost().spawnProcs({ gpus: 4 }));
    trainers = procs.spawn("trainers", Echo);
    await trainers.initialized;
    delete process.env.FRAY_TOKEN;
    jobId = await cluster.launch({ name: "hello", entrypoint: Entrypoint.fromBinary(process.execPath, ["-e", "console.log('hi')"]) });
    assert.equal((await cluster.wait(jobId)).status, "succeeded");
    dashboard = await startDashboard({ token, cluster, refreshMs: 100 });
    browser = await chromium.launch({ executablePath: CHROMIUM });
  });

  after(async () => {
    try {
      await browser?.close();
      await dashboard?.close();
      await procs?.stop();
      await cluster?.stopNamespace();
    } finally {
      setUnhandledFaultHook(previousHook);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  async function signedIn(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    const response = await page.goto(`${dashboard.url}/?token=${token}`);
    assert.equal(response?.status(), 200);
    assert.ok(!page.url().includes("token="), `the token is taken out of the address: ${page.url()}`);
    return page;
  }

  it("with the token, shows the mesh's actors and the finished job with its log tail", async () => {
    const page = await signedIn();
    try {
      for (let rank = 0; rank < 4; rank++) await page.waitForSelector(`#actors tr[data-actor="trainers[${rank}]"]`);
      const row = await page.textContent(`#actors tr[data-actor="trainers[1]"]`);
      assert.match(row!, /trainers\s*Echo\s*1/);
      assert.match(row!, /alive/);
      const job = await page.waitForSelector(`#jobs tr[data-job="${jobId}"]`);
      assert.match((await job.textContent())!, /hello\s*succeeded\s*1 succeeded\s*none/);
      assert.match((await page.textContent(`#jobs tr[data-job="${jobId}"] pre`))!, /\[replica-0\] hi/);
      assert.match((await page.textContent("#topology"))!, /trainers\[0\].*/);
      assert.match((await page.textContent("#failures"))!, /no failures/);
      // The CPU and memory charts: this process and each worker process of its mesh (read from /proc).
      for (const pid of procs.pids) {
        await page.waitForFunction((p) => !!document.querySelector(`svg[data-chart="rss"] polyline[data-line="trainers · pid ${p}"]`), pid);
      }
      await page.waitForFunction(() => Number(document.querySelector(`svg[data-chart="cpu"] polyline`)?.getAttribute("data-points") ?? 0) >= 2);
      const cookies = await page.context().cookies();
      assert.equal(cookies.length, 1);
      assert.notEqual(cookies[0].value, token, "the cookie holds a session id, not the token");
      assert.equal(cookies[0].httpOnly, true);
      assert.equal(cookies[0].sameSite, "Strict");
      await page.screenshot({ path: join(artifacts, "dashboard-signed-in.png"), fullPage: true });
    } finally {
      await page.context().close();
    }
  });

  it("shows a rank killed with SIGKILL as a failure while the page is open, with its cause", async () => {
    const page = await signedIn();
    try {
      await page.waitForSelector(`#actors tr[data-actor="trainers[2]"]`);
      assert.equal(await page.$("#failures li.failure"), null, "no failure before the kill");
      process.kill(procs.pids[2], "SIGKILL");
      const failure = await page.waitForSelector(`#failures li.failure[data-mesh="trainers"][data-rank="2"]`);
      assert.match((await failure.textContent())!, /SIGKILL/);
      await page.waitForFunction(() => /failed/.test(document.querySelector(`#actors tr[data-actor="trainers[2]"]`)?.textContent ?? ""));
      assert.match((await page.textContent(`#actors tr[data-actor="trainers[0]"]`))!, /alive/);
      assert.equal(failures.length, 1, "the test's fault hook saw the same failure");
      await page.screenshot({ path: join(artifacts, "dashboard-failure.png"), fullPage: true });
    } finally {
      await page.context().close();
    }
  });

  it("shows a task of this process that failed, with its name, error class and message", async () => {
    const page = await signedIn();
    const ctx = createJobContext("threads", { maxWorkers: 1 });
    try {
      await assert.rejects(ctx.get(ctx.createTask(failing, [], { name: "doomed" })), /Task failed!/);
      const failure = await page.waitForSelector(`#failures li.failure[data-kind="task"][data-task="doomed"]`);
      assert.match((await failure.textContent())!, /ValueError: Task failed!/);
      assert.match((await failure.textContent())!, new RegExp(`pid \\d+`));
      await page.waitForSelector(`#tasks tr[data-task="doomed"]`);
    } finally {
      await ctx.shutdown();
      await page.context().close();
    }
  });

  it("without the token, shows the login form and its APIs answer 401", async () => {
    const page = await (await browser.newContext()).newPage();
    try {
      const response = await page.goto(`${dashboard.url}/`);
      assert.equal(response?.status(), 401);
      await page.waitForSelector("#login form input[name=token]");
      assert.equal(await page.$("#actors"), null);
      await page.screenshot({ path: join(artifacts, "dashboard-login.png") });
      const api = await page.request.get(`${dashboard.url}/api/state`);
      assert.equal(api.status(), 401);
      assert.match((await api.json()).error, /sign in/);
      for (const path of ["api/events", "api/jobs", "api/actors", "api/failures", "metrics"]) {
        assert.equal((await fetch(`${dashboard.url}/${path}`)).status, 401, path);
      }
    } finally {
      await page.context().close();
    }
  });

  it("refuses a wrong token in the address, the form and a bearer header; the right one signs in", async () => {
    const page = await (await browser.newContext()).newPage();
    try {
      const response = await page.goto(`${dashboard.url}/?token=${token.slice(0, -1)}x`);
      assert.equal(response?.status(), 401);
      assert.match((await page.textContent("#login-message"))!, /Wrong token/);
      await page.fill("input[name=token]", "not-the-token");
      await Promise.all([page.waitForURL(/\/login$/), page.click("button[type=submit]")]);
      assert.match((await page.textContent("#login-message"))!, /Wrong token/);
      assert.deepEqual(await page.context().cookies(), []);
      assert.equal((await fetch(`${dashboard.url}/api/state`, { headers: { authorization: "Bearer not-the-token" } })).status, 401);
      assert.equal((await fetch(`${dashboard.url}/api/state`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
      await page.fill("input[name=token]", token);
      await Promise.all([page.waitForURL(`${dashboard.url}/`), page.click("button[type=submit]")]);
      await page.waitForSelector(`#actors tr[data-actor="trainers[0]"]`);
    } finally {
      await page.context().close();
    }
  });

  it("refuses a POST from another site even with a session (CSRF)", async () => {
    const login = await fetch(`${dashboard.url}/login`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: "http://evil.example", "content-type": "application/x-www-form-urlencoded" },
      body: `token=${token}`,
    });
    assert.equal(login.status, 403);
    const signIn = await fetch(`${dashboard.url}/?token=${token}`, { redirect: "manual" });
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0];
    const logout = await fetch(`${dashboard.url}/logout`, { method: "POST", redirect: "manual", headers: { cookie, origin: "http://evil.example" } });
    assert.equal(logout.status, 403);
    assert.equal((await fetch(`${dashboard.url}/api/state`, { headers: { cookie } })).status, 200, "the session survived the forged sign-out");
    const own = await fetch(`${dashboard.url}/logout`, { method: "POST", redirect: "manual", headers: { cookie, origin: dashboard.url } });
    assert.equal(own.status, 303);
    assert.equal((await fetch(`${dashboard.url}/api/state`, { headers: { cookie } })).status, 401, "signed out");
  });
});

describe("fray dashboard", () => {
  it("serves a cluster's jobs to whoever has the cluster's token, and says where the token is", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fray-dashboard-cli-"));
    const cluster = createCluster(`local?dir=${dir}`);
    const child = spawn(process.execPath, ["--import", "tsx", cli, "dashboard", "--cluster", cluster.spec, "--listen", "127.0.0.1:0"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const jobId = await cluster.launch({ name: "seen", entrypoint: Entrypoint.fromBinary(process.execPath, ["-e", "console.log('from the job')"]) });
      await cluster.wait(jobId);
      let out = "";
      child.stdout.setEncoding("utf8");
      for await (const chunk of child.stdout) {
        out += chunk;
        if (out.includes("token")) break;
      }
      const url = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1];
      assert.ok(url, out);
      assert.ok(out.includes(cluster.tokenFile), out);
      assert.ok(!out.includes(cluster.token()), "the token is not printed unless asked");
      assert.equal((await fetch(`${url}api/jobs`)).status, 401);
      const jobs = await (await fetch(`${url}api/jobs`, { headers: { authorization: `Bearer ${cluster.token()}` } })).json();
      assert.deepEqual(
        jobs.jobs.map((j: { jobId: string; status: string; logTail: string[] }) => [j.jobId, j.status, j.logTail]),
        [[jobId, "succeeded", ["[replica-0] from the job"]]],
      );
      const actors = await (await fetch(`${url}api/actors`, { headers: { authorization: `Bearer ${cluster.token()}` } })).json();
      assert.deepEqual(actors.errors, {}, "every source answered (this process took no token of its own)");
    } finally {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
      await cluster.stopNamespace();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("startDashboard's options", () => {
  it("rejects a missing token and a malformed listen address, naming the fix", async () => {
    await assert.rejects(startDashboard({ token: "" }), /needs options\.token/);
    await assert.rejects(startDashboard({ token: "t", listen: "localhost" }), /expected HOST:PORT, \[IPV6\]:PORT or PORT/);
    await assert.rejects(startDashboard({ token: "t", refreshMs: 0 }), /refreshMs must be a positive number/);
  });
});

describe("the dashboard over runtime metrics", () => {
  it("serves /metrics, and derives endpoint latency, task counts, per-class load and held objects from prom-client JSON", async () => {
    const le = [0.001, 0.01, 0.1, "+Inf"];
    const cumulative = [10, 90, 100, 100]; // 100 calls: 10 ≤ 1 ms, 80 in (1 ms, 10 ms], 10 in (10 ms, 100 ms]
    const json: MetricFamily[] = [
      {
        name: "fray_endpoint_duration_seconds",
        type: "histogram",
        values: [
          ...le.map((l, i) => ({
            metricName: "fray_endpoint_duration_seconds_bucket",
            labels: { class: "Echo", endpoint: "echo", le: l },
            value: cumulative[i],
          })),
          { metricName: "fray_endpoint_duration_seconds_count", labels: { class: "Echo", endpoint: "echo" }, value: 100 },
          { metricName: "fray_endpoint_duration_seconds_sum", labels: { class: "Echo", endpoint: "echo" }, value: 0.5 },
        ],
      },
      { name: "fray_mailbox_depth", type: "gauge", values: [{ labels: { class: "Echo" }, value: 7 }] },
      { name: "fray_tasks_done_total", type: "counter", values: [{ labels: {}, value: 1000 }] },
      { name: "fray_object_held_bytes", type: "gauge", values: [{ labels: {}, value: 300 }] },
      { name: "fray_object_spilled_bytes", type: "gauge", values: [{ labels: {}, value: 200 }] },
      { name: "fray_object_spilled_bytes_total", type: "counter", values: [{ labels: {}, value: 500 }] },
      { name: "fray_object_restored_bytes_total", type: "counter", values: [{ labels: {}, value: 400 }] },
      {
        name: "fray_object_transfer_bytes_total",
        type: "counter",
        values: [
          { labels: { path: "shm" }, value: 64 },
          { labels: { path: "same-process" }, value: 32 },
        ],
      },
    ];
    const text = "# TYPE fray_tasks_done_total counter\nfray_tasks_done_total 1000\n";
    const dashboard = await startDashboard({ token: "t", sources: metricsSources(async () => ({ text, json })) });
    try {
      const auth = { headers: { authorization: "Bearer t" } };
      assert.doesNotMatch(dashboard.url, /\/$/, "no trailing slash: `${url}/metrics` is the metrics");
      const metrics = await fetch(`${dashboard.url}/metrics`, auth);
      assert.match(metrics.headers.get("content-type")!, /^text\/plain; version=0\.0\.4/);
      assert.equal(await metrics.text(), text);
      const doubled = await fetch(`${dashboard.url}//metrics`, auth); // the path //metrics, not the page
      assert.deepEqual([doubled.status, await doubled.json()], [404, { error: "no such page or API: //metrics" }]);
      const state = await (await fetch(`${dashboard.url}/api/state`, auth)).json();
      assert.equal(state.latency.length, 1);
      const [row] = state.latency;
      assert.deepEqual([row.endpoint, row.count, row.meanMs], ["Echo.echo", 100, 5]);
      assert.ok(row.p50Ms > 1 && row.p50Ms <= 10, `p50 ${row.p50Ms} ms is in the (1 ms, 10 ms] bucket`);
      assert.ok(row.p99Ms > 10 && row.p99Ms <= 100, `p99 ${row.p99Ms} ms is in the (10 ms, 100 ms] bucket`);
      assert.deepEqual(state.tasks.counts, { pending: 0, running: 0, done: 1000, failed: 0 });
      assert.deepEqual(
        state.actorLoad.map((l: { className: string; mailboxDepth: number }) => [l.className, l.mailboxDepth]),
        [["Echo", 7]],
      );
      assert.deepEqual(state.objects, {
        heldBytes: 300,
        spilledBytes: 200,
        spilledBytesTotal: 500,
        restoredBytesTotal: 400,
        transferBytes: { shm: 64, "same-process": 32 },
      });
    } finally {
      await dashboard.close();
    }
  });
});
