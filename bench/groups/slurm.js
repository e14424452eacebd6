// With the test Slurm (scripts/slurm.sh; needs root and sbatch): S1 SlurmJob from state() to the first reply
// of an actor on its hosts, and P8 (slurm) cluster launch → running against sbatch alone. The cluster's
// hosts are network namespaces and Slurm answers only on its submit host, so this group starts the
// cluster, runs itself again there (BENCH_SLURM_ON_SUBMIT=1), and stops the cluster.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createCluster } from "../../dist/cluster.js";
import { SlurmJob } from "../../dist/launchers.js";
import { Echo } from "../fixtures/actors.js";
import { report, quick, skip, want } from "../lib/group.js";
import { launchToRunningMs, pause } from "../lib/launch.js";
import { median } from "../lib/stats.js";

const slurmHere = () => spawnSync("sh", ["-c", "command -v sbatch"]).status === 0 && process.getuid?.() === 0;
const hosts = () => JSON.parse(readFileSync("/run/fray-slurm/hosts.json", "utf8"));
if (want("S1", "P8") && !slurmHere()) skip("S1 and P8 on Slurm need root and sbatch");
else if (want("S1", "P8") && process.env.BENCH_SLURM_ON_SUBMIT !== "1") {
  const script = fileURLToPath(new URL("../../scripts/slurm.sh", import.meta.url));
  spawnSync("bash", [script, "up"], { env: { ...process.env, SLURM_NODES: "3" }, stdio: "ignore" });
  try {
    const { submit, shared } = hosts();
    const { status } = spawnSync("ip", ["netns", "exec", submit.netns, process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
      stdio: "inherit",
      // Jobs on the nodes reach the namespace service at the submit host's address; state goes where every host sees it.
      env: { ...process.env, BENCH_SLURM_ON_SUBMIT: "1", FRAY_NAMESPACE_LISTEN: `tcp://${submit.ip}:0`, FRAY_CLUSTER_DIR: join(shared, "fray-cluster") },
    });
    process.exitCode = status ?? 1;
  } finally {
    spawnSync("bash", [script, "down"], { stdio: "ignore" });
  }
} else if (want("S1", "P8")) {
  const sbatchStart = performance.now();
  const probe = spawnSync("sbatch", ["--parsable", "--wait", "--nodes=1", "--output=/dev/null", "--wrap", "true"], { encoding: "utf8" });
  const sbatchMs = performance.now() - sbatchStart;
  const t = performance.now();
  const job = new SlurmJob({ meshes: { trainers: 3 } });
  const { trainers } = await job.state();
  const procs = trainers.spawnProcs({ procs: 1 });
  const echo = procs.spawn("echo", Echo);
  await echo.ping.call();
  const ms = performance.now() - t;
  await echo.stop();
  await procs.stop();
  await job.kill();
  report(
    "S1",
    "SlurmJob on 3 nodes: state() → first reply from every node",
    ms.toFixed(0),
    "ms",
    probe.status === 0 ? `sbatch --wait of 'true' ${sbatchMs.toFixed(0)} ms` : "",
    "",
    "(no goal)",
    null,
  );
  // P8 (slurm): launch → running, against sbatch alone (same resource options) with squeue polled at the same 10 ms.
  // The two alternate, and each waits for its job to be gone, so both meet the scheduler in the same state.
  const slurm = createCluster(`slurm?dir=${join(hosts().shared, "bench-cluster")}`);
  const ours = [];
  const raw = [];
  const state = (id) => spawnSync("squeue", ["-h", "-j", id, "-o", "%T"], { encoding: "utf8" }).stdout.trim();
  for (let i = 0; i < (quick ? 3 : 10); i++) {
    ours.push(await launchToRunningMs(slurm, 1));
    const t = performance.now();
    const id = spawnSync("sbatch", ["--parsable", "--output=/dev/null", "--cpus-per-task=1", "--mem=128M", "--no-requeue", "--wrap", "sleep 60"], {
      encoding: "utf8",
    }).stdout.trim();
    while (state(id) !== "RUNNING") await pause(10);
    raw.push(performance.now() - t);
    spawnSync("scancel", [id]);
    while (state(id) !== "") await pause(10);
  }
  report(
    "P8",
    "slurm cluster: launch() → poll() says running (p50)",
    median(ours).toFixed(0),
    "ms",
    `sbatch + squeue polling ${median(raw).toFixed(0)} ms`,
    `${(median(ours) / median(raw)).toFixed(2)}×`,
    "(no goal)",
    null,
  );
}
