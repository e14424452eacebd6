// The local cluster's scheduler, with real processes: capacity (the spec's or the
// machine's), admission by priority then launch order, pinning, GPUs, memory
// limits, gang replicas with maxTaskFailures, and preemption by an outside SIGTERM.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it, type TestContext } from "node:test";
import { createCluster, type Cluster, type JobId, type JobInfo } from "../../src/cluster.ts";
import { announceChange } from "../../src/cluster/local/admission.ts";
import { parseCpuList } from "../../src/cluster/local/capacity.ts";
import { startDashboard } from "../../src/dashboard.ts";
import { pollUntil } from "../../src/runtime/base/poll.ts";
import { logLineMatching, nodeScript } from "./cluster-suite.ts";
import { isAlive, waitForExit } from "../helpers.ts";

/** A cluster on a fresh state dir with `query` added to its spec; its jobs, service and dir go when the test ends. */
function localCluster(t: TestContext, query = ""): { cluster: Cluster; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "fray-scheduler-"));
  const cluster = createCluster(`local?dir=${dir}${query}`);
  t.after(async () => {
    for (const job of await cluster.listJobs()) if (job.status === "running" || job.status === "pending") await cluster.terminate(job.jobId);
    await cluster.stopNamespace();
    rmSync(dir, { recursive: true, force: true });
  });
  return { cluster, dir };
}

/** Polls the job until `check` holds of its JobInfo. */
function until(cluster: Cluster, id: JobId, what: string, check: (info: JobInfo) => boolean): Promise<JobInfo> {
  return pollUntil(
    async () => {
      const info = await cluster.poll(id);
      return check(info) && info;
    },
    { intervalMs: 20, deadlineMs: 60_000, bound: "the test's 60 s", what: `job ${id} to be ${what}` },
  );
}

/** A script that runs until `file` exists. */
const untilFile = (file: string, before = "") =>
  nodeScript(`${before}; const t = setInterval(() => { if (require("fs").existsSync(${JSON.stringify(file)})) { clearInterval(t); } }, 20)`);

/** A job's line that says which CPUs it may run on: "cpus 0-1". */
const printCpus = `console.log("cpus", /Cpus_allowed_list:\\s*(.+)/.exec(require("fs").readFileSync("/proc/self/status", "utf8"))[1])`;
const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const myCpus = parseCpuList(/^Cpus_allowed_list:\s*(.+)$/m.exec(readFileSync("/proc/self/status", "utf8"))![1]);

describe("the local cluster's scheduler", () => {
  it("on 2 cores runs three 2-core jobs one at a time, highest priority first; a pending one says why and can be stopped", async (t) => {
    const { cluster, dir } = localCluster(t, "&cpu=2");
    const release = join(dir, "release");
    const order = join(dir, "order");
    const hold = await cluster.launch({ name: "hold", entrypoint: untilFile(release), resources: { cpu: 2 } });
    await until(cluster, hold, "running", (i) => i.status === "running");
    // Each appends its start and end; `busy` (made exclusively) would show two at once.
    const job = (name: string) =>
      nodeScript(`const fs = require("fs"); const o = ${JSON.stringify(order)}; const busy = ${JSON.stringify(join(dir, "busy"))};
        try { fs.writeFileSync(busy, "", { flag: "wx" }); } catch { fs.appendFileSync(o, "overlap ${name}\\n"); }
        fs.appendFileSync(o, "start ${name}\\n"); fs.appendFileSync(o, "end ${name}\\n"); fs.rmSync(busy, { force: true });`);
    const ids = [];
    for (const [name, priority] of [
      ["p1", 1],
      ["p3", 3],
      ["p2", 2],
    ] as const)
      ids.push(await cluster.launch({ name, entrypoint: job(name), resources: { cpu: 2 }, priority }));
    const doomed = await cluster.launch({ name: "doomed", entrypoint: job("doomed"), resources: { cpu: 2 } });
    const p1 = await until(cluster, ids[0], "waiting behind two", (i) => /2 jobs ahead/.test(i.tasks[0].errorMessage ?? ""));
    assert.equal(p1.status, "pending");
    assert.match(p1.tasks[0].errorMessage!, /^waiting for 2 cpu: 0 of 2 free, 2 jobs ahead$/);
    const p3 = await until(cluster, ids[1], "waiting for cores", (i) => /free/.test(i.tasks[0].errorMessage ?? ""));
    assert.equal(p3.tasks[0].errorMessage, "waiting for 2 cpu: 0 of 2 free");
    await cluster.terminate(doomed);
    const stopped = await cluster.poll(doomed);
    assert.equal(stopped.status, "stopped");
    assert.match(stopped.errorMessage ?? "", /was stopped by terminate\(\) before it started/);
    writeFileSync(release, "");
    const done = await cluster.wait(ids, { raiseOnFailure: true });
    assert.deepEqual(
      done.map((i) => i.status),
      ["succeeded", "succeeded", "succeeded"],
    );
    assert.deepEqual(readFileSync(order, "utf8").trim().split("\n"), ["start p3", "end p3", "start p2", "end p2", "start p1", "end p1"]);
  });

  it("a job whose supervisor dies while it waits fails, saying so, and the job behind it starts", async (t) => {
    const { cluster, dir } = localCluster(t, "&cpu=1");
    const release = join(dir, "release");
    const one = { cpu: 1 };
    const hold = await cluster.launch({ name: "hold", entrypoint: untilFile(release), resources: one });
    await until(cluster, hold, "running", (i) => i.status === "running");
    const orphan = await cluster.launch({ name: "orphan", entrypoint: nodeScript(""), resources: one });
    const next = await cluster.launch({ name: "next", entrypoint: nodeScript(""), resources: one });
    await until(cluster, next, "waiting", (i) => i.tasks[0].errorMessage === "waiting for 1 cpu: 0 of 1 free, 1 job ahead");
    const supervisor = JSON.parse(readFileSync(join(dir, "local", orphan, "supervisor.json"), "utf8")).pid as number;
    process.kill(supervisor, "SIGKILL");
    await waitForExit([supervisor]);
    const info = await cluster.poll(orphan);
    assert.equal(info.status, "failed");
    assert.match(info.errorMessage ?? "", new RegExp(`replica 0 did not start: its supervisor \\(pid ${supervisor}\\) ended`));
    await until(cluster, next, "first in line", (i) => i.tasks[0].errorMessage === "waiting for 1 cpu: 0 of 1 free");
    writeFileSync(release, "");
    assert.equal((await cluster.wait(next)).status, "succeeded");
  });

  it("refuses at launch, naming the resource and the fix, a request no capacity could hold, and leaves nothing behind", async (t) => {
    const { cluster, dir } = localCluster(t, "&cpu=2&ram=1g&gpu=1");
    const ok = nodeScript("");
    await assert.rejects(
      cluster.launch({ name: "big", entrypoint: ok, resources: { cpu: 3 } }),
      /job big asks for 3 cpu but the local cluster has 2 cpu \(from the cluster spec\), so it could never start; ask for less, or set the capacity in the cluster spec \("local\?cpu=N", which oversubscribes the real cores\)/,
    );
    await assert.rejects(
      cluster.launch({ name: "gang", entrypoint: ok, resources: { replicas: 3, cpu: 1 } }),
      /asks for 3 × 1 cpu but the local cluster has 2 cpu/,
    );
    await assert.rejects(
      cluster.launch({ name: "ram", entrypoint: ok, resources: { ram: "2g" } }),
      /asks for 2 GB ram but the local cluster has 1 GB of ram .*"local\?ram=SIZE"/,
    );
    await assert.rejects(
      cluster.launch({ name: "gpus", entrypoint: ok, resources: { device: { kind: "gpu", count: 2 } } }),
      /asks for 2 gpu but the local cluster has 1 gpu .*"local\?gpu=N"/,
    );
    await assert.rejects(
      cluster.launch({ name: "tpu", entrypoint: ok, resources: { device: { kind: "tpu", variant: "v5e-8" } } }),
      /the local cluster has no TPUs/,
    );
    // Without an override, the machine's own cores: the CPUs this process may run on.
    const machine = createCluster(`local?dir=${dir}`);
    const cores = myCpus.length;
    assert.ok(cores <= availableParallelism());
    await assert.rejects(
      machine.launch({ name: "huge", entrypoint: ok, resources: { cpu: cores + 1 } }),
      new RegExp(`asks for ${cores + 1} cpu but the local cluster has ${cores} cpu \\(from this machine \\(the CPUs this process may run on\\)\\)`),
    );
    assert.deepEqual(await cluster.listJobs(), []);
    assert.deepEqual(existsSync(join(dir, "local")) ? readdirSync(join(dir, "local")) : [], []);
    assert.throws(() => createCluster(`local?dir=${dir}&cpu=0`), /option cpu must be a whole number ≥ 1, got "0"/);
    assert.throws(() => createCluster(`local?dir=${dir}&ram=lots`), /option ram must be a size such as "512m"/);
  });

  it("pins each job to its granted cores; a cpu: 0 job is not pinned", async (t) => {
    const { cluster, dir } = localCluster(t, "&cpu=2");
    const release = join(dir, "release");
    const a = await cluster.launch({ name: "a", entrypoint: untilFile(release, printCpus), resources: { cpu: 1 } });
    const aCpus = (await logLineMatching(cluster, a, /^\[replica-0\] cpus (.+)$/))[1];
    const b = await cluster.launch({ name: "b", entrypoint: untilFile(release, printCpus), resources: { cpu: 1 } });
    const bCpus = (await logLineMatching(cluster, b, /^\[replica-0\] cpus (.+)$/))[1];
    // Logical cores 0 and 1, on the real ones round-robin.
    assert.deepEqual([parseCpuList(aCpus), parseCpuList(bCpus)], [[myCpus[0]], [myCpus[1 % myCpus.length]]]);
    const free = await cluster.launch({ name: "free", entrypoint: nodeScript(printCpus), resources: { cpu: 0 } });
    assert.deepEqual(parseCpuList((await logLineMatching(cluster, free, /^\[replica-0\] cpus (.+)$/))[1]), myCpus);
    writeFileSync(release, "");
    await cluster.wait([a, b, free], { raiseOnFailure: true });
  });

  it("a job that asks for no cpu is admitted beside jobs holding every core and shares them, its request shown as none; asked cpus still wait", async (t) => {
    const { cluster, dir } = localCluster(t, "&cpu=2");
    const release = join(dir, "release");
    const hold = await cluster.launch({ name: "hold", entrypoint: untilFile(release), resources: { cpu: 2, ram: "64m" } });
    await until(cluster, hold, "running", (i) => i.status === "running");
    // Three replicas on two cores, both held: with no cpu asked, all three start, unpinned.
    const free = await cluster.launch({ name: "free", entrypoint: untilFile(release, printCpus), replicas: 3 });
    const running = await until(cluster, free, "running", (i) => i.tasks.every((task) => task.status === "running"));
    assert.equal(running.request, "none");
    const cpus = new Map<string, number[]>();
    for await (const line of cluster.monitor(free)) {
      const m = /^\[(replica-\d)\] cpus (.+)$/.exec(line);
      if (m) cpus.set(m[1], parseCpuList(m[2]));
      if (cpus.size === 3) break;
    }
    assert.deepEqual([...cpus.values()], [myCpus, myCpus, myCpus]);
    // An asked cpu is still held to the cores: it waits, and a gang larger than the machine never starts.
    const asked = await cluster.launch({ name: "asked", entrypoint: nodeScript(""), resources: { cpu: 1 } });
    await until(cluster, asked, "waiting", (i) => i.tasks[0].errorMessage === "waiting for 1 cpu: 0 of 2 free");
    await assert.rejects(cluster.launch({ name: "gang", entrypoint: nodeScript(""), resources: { cpu: 1 }, replicas: 3 }), /could never start/);
    // The request, wherever it is shown: JobInfo, fray job status, the dashboard.
    assert.equal((await cluster.poll(hold)).request, "2 cpu, 64 MB ram");
    const status = spawnSync(process.execPath, [bin, "job", "status", free, "--cluster", cluster.spec], { encoding: "utf8", timeout: 60_000 });
    assert.equal(status.status, 0, status.stderr);
    assert.match(status.stdout, /^JOB ID\s+NAME\s+STATUS\s+REPLICAS\s+REQUEST\s+ERROR\n/);
    assert.match(status.stdout, new RegExp(`${free}\\s+free\\s+running\\s+3 running\\s+none\\s*$`, "m"));
    const dashboard = await startDashboard({ token: cluster.token(), cluster });
    try {
      const shown = (await (await fetch(`${dashboard.url}/api/jobs`, { headers: { authorization: `Bearer ${cluster.token()}` } })).json()) as {
        jobs: JobInfo[];
      };
      assert.deepEqual(
        shown.jobs.map((j) => [j.name, j.request]),
        [
          ["hold", "2 cpu, 64 MB ram"],
          ["free", "none"],
          ["asked", "1 cpu"],
        ],
      );
    } finally {
      await dashboard.close();
    }
    writeFileSync(release, "");
    await cluster.wait([hold, free, asked], { raiseOnFailure: true });
  });

  it("fractional cpus share a core: two 0.5-cpu jobs run at once on one core, a third waits", async (t) => {
    const { cluster, dir } = localCluster(t, "&cpu=1");
    const release = join(dir, "release");
    const half = { cpu: 0.5 };
    const ids = [];
    for (const name of ["h0", "h1"]) {
      const id = await cluster.launch({ name, entrypoint: untilFile(release, printCpus), resources: half });
      ids.push(id);
      assert.deepEqual(parseCpuList((await logLineMatching(cluster, id, /^\[replica-0\] cpus (.+)$/))[1]), [myCpus[0]]);
    }
    assert.deepEqual((await cluster.poll(ids[0])).notEnforced, [
      "cpu: the 0.5 of a core is pinned to a core shared with other fractions; its share of that core is not enforced",
    ]);
    const third = await cluster.launch({ name: "h2", entrypoint: nodeScript(""), resources: half });
    await until(cluster, third, "waiting for a share", (i) => i.tasks[0].errorMessage === "waiting for 0.5 cpu: 0 of 1 free");
    writeFileSync(release, "");
    await cluster.wait([...ids, third], { raiseOnFailure: true });
  });

  it("gives two 1-GPU jobs different CUDA_VISIBLE_DEVICES; a third waits for a GPU; a job without GPUs sees none", async (t) => {
    const { cluster, dir } = localCluster(t, "&cpu=4&gpu=2");
    const release = join(dir, "release");
    const print = `console.log("gpus", JSON.stringify(process.env.CUDA_VISIBLE_DEVICES))`;
    const gpu = { device: { kind: "gpu", count: 1 } } as const;
    const seen = [];
    const ids = [];
    for (const name of ["g0", "g1"]) {
      const id = await cluster.launch({ name, entrypoint: untilFile(release, print), resources: gpu });
      ids.push(id);
      seen.push(JSON.parse((await logLineMatching(cluster, id, /^\[replica-0\] gpus (.+)$/))[1]));
    }
    assert.deepEqual(seen.sort(), ["0", "1"]);
    const none = await cluster.launch({ name: "none", entrypoint: nodeScript(print) });
    assert.equal(JSON.parse((await logLineMatching(cluster, none, /^\[replica-0\] gpus (.+)$/))[1]), "");
    const third = await cluster.launch({ name: "g2", entrypoint: nodeScript(print), resources: gpu });
    await until(cluster, third, "waiting for a GPU", (i) => i.tasks[0].errorMessage === "waiting for 1 gpu: 0 of 2 free");
    // Strictly in order: a job behind it waits too, though its cores are free.
    const behind = await cluster.launch({ name: "behind", entrypoint: nodeScript("") });
    await until(cluster, behind, "waiting behind it", (i) => i.tasks[0].errorMessage === "waiting for the 1 job ahead of it to start");
    writeFileSync(release, "");
    await cluster.wait([...ids, third, behind], { raiseOnFailure: true });
  });

  it("kills a job past its resources.ram and reports it out of memory", async (t) => {
    const { cluster } = localCluster(t, "&cpu=2");
    const id = await cluster.launch({
      name: "hog",
      entrypoint: nodeScript("const kept = []; for (let i = 0; i < 64; i++) kept.push(Buffer.alloc(16 << 20, 1)); console.log('allocated 1 GB')"),
      resources: { ram: "200m" },
    });
    const info = await cluster.wait(id, { raiseOnFailure: false });
    assert.equal(info.status, "failed");
    assert.ok(!(await cluster.logs(id)).includes("[replica-0] allocated 1 GB"));
    if (info.notEnforced?.some((n) => n.startsWith("ram:"))) {
      // No writable memory cgroup: RLIMIT_DATA makes the allocation fail instead.
      assert.match(info.errorMessage ?? "", /allocation failed|out of memory/i);
    } else {
      assert.equal(info.errorMessage, "replica 0 ran out of memory: killed by the kernel's OOM killer at its 200 MB limit (resources.ram)");
      const cgroup = /^\d+:[^:]*memory[^:]*:(.*)$/m.exec(readFileSync("/proc/self/cgroup", "utf8"))?.[1];
      if (cgroup !== undefined) assert.equal(existsSync(join("/sys/fs/cgroup/memory", cgroup, `fray-${id}-0`)), false, "its cgroup is removed");
    }
  });

  it("maxTaskFailures 0: one replica failing stops the others and fails the job naming it", async (t) => {
    const { cluster } = localCluster(t, "&cpu=4");
    const id = await cluster.launch({
      name: "gang",
      entrypoint: nodeScript(
        "const r = process.env.FRAY_REPLICA_ID; console.log('pid', process.pid); if (r === '1') process.exit(3); setInterval(() => {}, 1000)",
      ),
      resources: { replicas: 3 },
    });
    const info = await cluster.wait(id, { raiseOnFailure: false });
    const pids = (await cluster.logs(id)).map((l) => Number(/pid (\d+)/.exec(l)?.[1])).filter((p) => p > 0);
    assert.equal(info.status, "failed");
    assert.deepEqual(
      info.tasks.map((task) => [task.status, task.errorMessage]),
      [
        ["stopped", "was stopped because replica 1 failed"],
        ["failed", "exited with code 3: pid " + /replica-1\] pid (\d+)/.exec((await cluster.logs(id)).join("\n"))![1]],
        ["stopped", "was stopped because replica 1 failed"],
      ],
    );
    assert.match(info.errorMessage ?? "", /^replica 1 exited with code 3: pid \d+$/);
    assert.equal(info.preemptions, 0, "the replicas it stopped were not preempted");
    await waitForExit(pids);
    assert.ok(pids.every((p) => !isAlive(p)));
  });

  it("maxTaskFailures 1 tolerates one failed replica: the others go on", async (t) => {
    const { cluster, dir } = localCluster(t, "&cpu=4");
    const go = join(dir, "go");
    const id = await cluster.launch({
      name: "tolerant",
      entrypoint: untilFile(go, "if (process.env.FRAY_REPLICA_ID === '0') process.exit(1)"),
      resources: { replicas: 2 },
      maxTaskFailures: 1,
    });
    const mid = await until(cluster, id, "with replica 0 failed", (i) => i.tasks[0].status === "failed");
    assert.equal(mid.status, "running");
    assert.equal(mid.tasks[1].status, "running");
    writeFileSync(go, "");
    const done = await cluster.wait(id, { raiseOnFailure: false });
    assert.deepEqual(
      done.tasks.map((task) => task.status),
      ["failed", "succeeded"],
    );
  });

  it("a SIGTERM from outside to a replica's process is a preemption: counted apart from failures, and the job goes on", async (t) => {
    const { cluster, dir } = localCluster(t, "&cpu=2");
    const marker = join(dir, "first-attempt");
    const id = await cluster.launch({
      name: "preempted",
      entrypoint: nodeScript(`const fs = require("fs"); const m = ${JSON.stringify(marker)};
        if (fs.existsSync(m)) { console.log("second attempt"); process.exit(0); }
        fs.writeFileSync(m, ""); console.log("first", process.pid); setInterval(() => {}, 1000);`),
    });
    const pid = Number((await logLineMatching(cluster, id, /first (\d+)/))[1]);
    process.kill(pid, "SIGTERM");
    const info = await cluster.wait(id, { raiseOnFailure: true });
    assert.equal(info.preemptions, 1);
    assert.equal(info.failures, 0);
    assert.ok((await cluster.logs(id)).includes("[replica-0] second attempt"));
  });

  it("notEnforced lists disk when the request names it, and nothing otherwise", async (t) => {
    const { cluster } = localCluster(t, "&cpu=2");
    const withDisk = await cluster.wait(await cluster.launch({ name: "disk", entrypoint: nodeScript(""), resources: { disk: "10g" } }));
    assert.deepEqual(withDisk.notEnforced, ["disk: the local cluster does not limit disk use (10 GB asked)"]);
    const plain = await cluster.wait(await cluster.launch({ name: "plain", entrypoint: nodeScript("") }));
    assert.equal(plain.notEnforced, undefined);
  });
});

it("a change announced after the cluster's state dir was removed does not make it again (a job's supervisor ending late)", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "fray-scheduler-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const root = join(dir, "local");
  announceChange(root);
  assert.deepEqual(readdirSync(dir), []);
  mkdirSync(root);
  announceChange(root);
  assert.ok(existsSync(join(root, "scheduler", "changes", "last")));
});
