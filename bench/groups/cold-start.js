// P6: cold start — 4 processes, spawn, first reply — against starting 4 bare node processes.
import { fork } from "node:child_process";
import { once } from "node:events";
import { thisHost } from "../../dist/mesh.js";
import { Echo } from "../fixtures/actors.js";
import { report, want } from "../lib/group.js";
import { median } from "../lib/stats.js";

if (want("P6")) {
  const times = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const procs = thisHost().spawnProcs({ procs: 4 });
    const mesh = procs.spawn("cold", Echo);
    await mesh.ping.call();
    times.push(performance.now() - t);
    await procs.stop();
  }
  const floor = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const children = Array.from({ length: 4 }, () => fork("-e", ["process.send(1)"], { execArgv: ["--input-type=module"] }));
    await Promise.all(children.map((c) => once(c, "message")));
    floor.push(performance.now() - t);
    children.forEach((c) => c.kill());
  }
  const p50 = median(times);
  report("P6", "cold start: 4 processes + spawn + first call (median of 5)", p50.toFixed(0), "ms", `4 bare node processes ${median(floor).toFixed(0)} ms`, `${(p50 / median(floor)).toFixed(2)}× bare`, "≤ 250 ms", p50 <= 250);
}
