// P8 (local): cluster launch → running, against spawning the same command detached.
// (P8 on Slurm is in slurm.js, with the Slurm it needs.)
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createCluster } from "../../dist/cluster.js";
import { launchToRunningMs } from "../lib/launch.js";
import { quick, report, scratch, want } from "../lib/group.js";
import { median } from "../lib/stats.js";

if (want("P8")) {
  const n = quick ? 5 : 20;
  const local = createCluster(`local?dir=${join(scratch, "cluster")}`);
  const ms = await launchToRunningMs(local, n);
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const child = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
    await once(child, "spawn");
    times.push(performance.now() - t);
    child.kill("SIGKILL");
  }
  const raw = median(times);
  report(
    "P8",
    "local cluster: launch() → poll() says running (p50)",
    ms.toFixed(1),
    "ms",
    `detached spawn of the same command ${raw.toFixed(1)} ms`,
    `${(ms / raw).toFixed(1)}×`,
    "≤ 100 ms",
    ms <= 100,
  );
}
