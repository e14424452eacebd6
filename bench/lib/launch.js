// Launch → running, the P8 measure shared by the local and the Slurm cluster groups.
import { Entrypoint } from "../../dist/cluster.js";
import { median } from "./stats.js";

export const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Median ms from launch() until poll() says running, over `n` jobs of `sleep 60`
 * (each terminated after). The cluster's namespace service is started first, as
 * it runs for every launch but a cluster's very first, and stopped at the end.
 */
export async function launchToRunningMs(cluster, n) {
  const times = [];
  await cluster.namespace();
  try {
    return await timeLaunches(cluster, n, times);
  } finally {
    await cluster.stopNamespace();
  }
}

async function timeLaunches(cluster, n, times) {
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const id = await cluster.launch({ name: "p8", entrypoint: Entrypoint.fromBinary("sleep", ["60"]) });
    while ((await cluster.poll(id)).status !== "running") await pause(10);
    times.push(performance.now() - t);
    await cluster.terminate(id);
  }
  return median(times);
}
