// S2: broadcast + collect (call() on every rank) on 16, 64, 256 and 1,024 simulated hosts (SimulatedJob: virtual
// hosts packed into 8 processes, each host's proc a Proc of its own on its own TCP port), cast down the tree
// (FRAY_CAST_FANOUT 16) and sent straight to every host, alternating in the same run on the same mesh.
// All hosts share this machine's cores, so the work every host does adds up here where on real hosts it would not.
import { SimulatedJob } from "../../dist/launchers.js";
import { Echo } from "../fixtures/actors.js";
import { report, scale, want } from "../lib/group.js";
import { median, percentile } from "../lib/stats.js";

const TREE = "16";
const STRAIGHT = "1000000"; // more than any mesh here: the caller sends to every process itself

/** Latencies of `rounds` calls with the fan-out `fanout` (read by this process at each call). */
async function calls(mesh, fanout, rounds) {
  process.env.FRAY_CAST_FANOUT = fanout;
  const times = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    const values = await mesh.ping.call();
    times.push(performance.now() - t);
    if (values.size !== mesh.size) throw new Error("lost replies");
  }
  return times;
}

if (want("S2")) {
  const p50 = {};
  for (const hosts of [16, 64, 256, 1024]) {
    process.env.FRAY_CAST_FANOUT = TREE; // the hosts' relays inherit it
    const job = new SimulatedJob({ meshes: { hosts }, processes: Math.min(8, hosts) });
    try {
      const { hosts: hostMesh } = await job.state();
      const procs = hostMesh.spawnProcs();
      const mesh = procs.spawn("echo", Echo);
      await mesh.initialized;
      await calls(mesh, STRAIGHT, 10); // connects the caller to every host: casts go through relays only to connected ones
      await calls(mesh, TREE, 10);
      const rounds = Math.max(10, Math.round((hosts >= 256 ? 60 : 200) * scale));
      const tree = [];
      const straight = [];
      for (let block = 0; block < 10; block++) {
        tree.push(...(await calls(mesh, TREE, Math.ceil(rounds / 10))));
        straight.push(...(await calls(mesh, STRAIGHT, Math.ceil(rounds / 10))));
      }
      p50[hosts] = median(tree);
      const vsStraight = median(tree) / median(straight);
      report(
        "S2",
        `call() on ${hosts.toLocaleString("en")} simulated hosts in ${Math.min(8, hosts)} processes, tree of fan-out 16 (p50; p99 ` +
          `${percentile(tree, 0.99).toFixed(2)} ms)`,
        median(tree).toFixed(2),
        "ms",
        `straight to every host ${median(straight).toFixed(2)} ms (p99 ${percentile(straight, 0.99).toFixed(2)} ms)`,
        `${vsStraight.toFixed(2)}× straight`,
        "—",
        null,
      );
      await procs.stop();
    } finally {
      await job.kill();
    }
  }
  const growth = p50[1024] / p50[16];
  report(
    "S2",
    "growth of call() latency with the tree from 16 to 1,024 simulated hosts (p50 ratio)",
    growth.toFixed(1),
    "×",
    `16 hosts ${p50[16].toFixed(2)} ms, 1,024 hosts ${p50[1024].toFixed(2)} ms`,
    "",
    "≤ 3× (log growth)",
    growth <= 3,
  );
}
