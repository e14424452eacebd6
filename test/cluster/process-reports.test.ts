// What a cluster job's processes tell the dashboard through their report files (FRAY_REPORT_DIR), and what the
// dashboard makes of them: a driver ended by SIGTERM or SIGINT still writes its last report (and still dies of
// the signal); two processes with the same pid in different pid namespaces keep a report each; reports whose
// process ended are removed after FRAY_REPORT_KEEP_MS (by the dashboard, and by the job's next process to
// start) while a running one's stays; a report file that cannot
// be read is listed in the jobs panel instead of blanking it.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { createCluster, Entrypoint } from "../../src/cluster.ts";
import { kJobFiles } from "../../src/cluster/cluster.ts";
import { ReportReader } from "../../src/cluster/dashboard/job-reports.ts";
import { clusterSources } from "../../src/dashboard.ts";
import { pollUntil } from "../../src/runtime/base/poll.ts";
import type { ProcessReport } from "../../src/runtime/face/metrics.ts";

const DRIVER = fileURLToPath(new URL("./process-reports-driver.ts", import.meta.url));
const started = new Set<ChildProcess>();

after(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** Starts the driver on `backend` reporting to `dir`; resolves once it ran its task. */
async function driver(dir: string, backend: string, options: { serve?: boolean; env?: NodeJS.ProcessEnv; prefix?: string[] } = {}) {
  const argv = [...(options.prefix ?? []), process.execPath, "--import", "tsx", DRIVER, backend, ...(options.serve ? ["serve"] : [])];
  const child = spawn(argv[0], argv.slice(1), { env: { ...process.env, FRAY_REPORT_DIR: dir, ...options.env }, stdio: ["ignore", "pipe", "inherit"] });
  started.add(child);
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d));
  await Promise.race([
    pollUntil(() => out.includes("ran 49"), { intervalMs: 20, deadlineMs: 60_000, what: "the driver to run its task", bound: "the test's 60 s" }),
    exited.then(([code, signal]) => assert.fail(`the driver ended (${code ?? signal}) before running its task`)),
  ]);
  return { child, exited };
}

function reports(dir: string): (ProcessReport & { file: string })[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map((file) => ({ ...(JSON.parse(readFileSync(join(dir, file), "utf8")) as ProcessReport), file }));
}

/** Resolves once `pid` wrote a report to `dir` (the first is written as its runtime starts, asynchronously). */
function reported(dir: string, pid: number) {
  return pollUntil(() => reports(dir).find((r) => r.pid === pid), { intervalMs: 20, deadlineMs: 30_000, what: `pid ${pid}'s report`, bound: "30 s" });
}

describe("process reports", () => {
  const root = mkdtempSync(join(tmpdir(), "fray-process-reports-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  const newDir = () => mkdtempSync(join(root, `${n++}-`));

  for (const [backend, signal] of [
    ["threads", "SIGTERM"],
    ["processes", "SIGTERM"],
    ["mesh", "SIGTERM"],
    ["threads", "SIGINT"],
  ] as const) {
    it(`a ${backend} driver ended by ${signal} writes its last report, and dies of ${signal}`, async () => {
      const dir = newDir();
      const { child, exited } = await driver(dir, backend, { serve: true });
      await reported(dir, child.pid!);
      child.kill(signal);
      const [code, died] = await exited;
      assert.deepEqual({ code, died }, { code: null, died: signal });
      const own = reports(dir).filter((r) => r.pid === child.pid);
      assert.equal(own.length, 1);
      assert.equal(own[0].exited, true, "its report is its last word");
    });
  }

  it("two drivers with the same pid in different pid namespaces keep a report each", async () => {
    const dir = newDir();
    const unshare = ["unshare", "--pid", "--fork", "--mount-proc"];
    const runs = await Promise.all([driver(dir, "threads", { prefix: unshare }), driver(dir, "threads", { prefix: unshare })]);
    for (const { exited } of runs) assert.deepEqual(await exited, [0, null]);
    const all = reports(dir);
    assert.deepEqual(
      all.map((r) => [r.pid, r.exited]),
      [
        [1, true],
        [1, true],
      ],
    );
    assert.notEqual(all[0].pidNamespace, all[1].pidNamespace);
    assert.equal(all[0].bootId, all[1].bootId);
    assert.deepEqual(
      readdirSync(dir).filter((f) => !f.endsWith(".json")),
      [],
      "no temp file is left",
    );
  });

  it("reports of ended processes go after FRAY_REPORT_KEEP_MS; a running process's report stays", async () => {
    const dir = newDir();
    const ended = await driver(dir, "threads");
    assert.deepEqual(await ended.exited, [0, null]);
    const killed = await driver(dir, "threads", { serve: true });
    await reported(dir, killed.child.pid!);
    killed.child.kill("SIGKILL");
    await killed.exited;
    const serving = await driver(dir, "processes", { serve: true });
    await reported(dir, serving.child.pid!);
    const pidsBefore = new Set(reports(dir).map((r) => r.pid));
    assert.ok(pidsBefore.has(ended.child.pid!) && pidsBefore.has(killed.child.pid!), "kept for FRAY_REPORT_KEEP_MS (an hour by default)");

    // The dashboard reading the job's reports removes those of the two that ended, once they are older than that.
    process.env.FRAY_REPORT_KEEP_MS = "1000";
    try {
      const reader = new ReportReader();
      const left = await pollUntil(
        () => {
          const read = reader.read("job", dir);
          return !read.processes.some((p) => p.pid === ended.child.pid || p.pid === killed.child.pid) && read;
        },
        { intervalMs: 100, deadlineMs: 30_000, what: "the ended processes' reports to go", bound: "30 s" },
      );
      const pids = new Set(reports(dir).map((r) => r.pid));
      assert.equal(pids.has(ended.child.pid!) || pids.has(killed.child.pid!), false);
      assert.ok(pids.has(serving.child.pid!), "the running driver's report stays");
      assert.ok(left.processes.some((p) => p.pid === serving.child.pid && p.state === "alive"));
    } finally {
      delete process.env.FRAY_REPORT_KEEP_MS;
      serving.child.kill("SIGTERM");
      await serving.exited;
    }
  });

  it("a job's process that starts removes the reports of its processes that ended FRAY_REPORT_KEEP_MS ago", async () => {
    const dir = newDir();
    const ended = await driver(dir, "threads");
    assert.deepEqual(await ended.exited, [0, null]);
    const killed = await driver(dir, "threads", { serve: true });
    await reported(dir, killed.child.pid!);
    killed.child.kill("SIGKILL");
    await killed.exited;
    // The next one keeps ended processes' reports 1 ms: theirs are older than that.
    const next = await driver(dir, "threads", { serve: true, env: { FRAY_REPORT_KEEP_MS: "1" } });
    try {
      await pollUntil(() => reports(dir).every((r) => r.pid === next.child.pid) && reports(dir).length === 1, {
        intervalMs: 50,
        deadlineMs: 30_000,
        what: "the ended processes' reports to go",
        bound: "30 s",
      });
    } finally {
      next.child.kill("SIGTERM");
      await next.exited;
    }
  });

  it("a report file that cannot be read is listed on its job's row; the jobs panel still shows every job", async () => {
    const cluster = createCluster(`local?dir=${join(newDir(), "cluster")}`);
    try {
      const id = await cluster.launch({ name: "reports", entrypoint: Entrypoint.fromBinary(process.execPath, ["-e", "console.log('done')"]) });
      assert.equal((await cluster.wait(id)).status, "succeeded");
      const { reportDir } = await cluster[kJobFiles](id);
      // A report cut short (a full disk, or a writer of another version).
      writeFileSync(join(reportDir!, "elsewhere-1234.json"), '{"pid": 1234, "host": "elsew');
      const rows = await clusterSources(cluster).jobs!();
      assert.deepEqual(
        rows.map((r) => r.jobId),
        [id],
      );
      assert.equal(rows[0].reports.unreadable.length, 1);
      assert.equal(rows[0].reports.unreadable[0].file, join(reportDir!, "elsewhere-1234.json"));
      assert.match(rows[0].reports.unreadable[0].error, /JSON/);
    } finally {
      await cluster.stopNamespace();
    }
  });
});
