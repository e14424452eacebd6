// P7: 100,000 idle actors in one process, and heap bytes per actor. Needs --expose-gc (the driver passes it;
// worker processes inherit it) so that the probe measures the heap after a full collection.
import { thisHost } from "../../dist/mesh.js";
import { Idle, MemoryProbe } from "../fixtures/actors.js";
import { report, scale, want } from "../lib/group.js";

if (want("P7")) {
  if (typeof globalThis.gc !== "function") throw new Error("P7 measures the heap after a full collection: run it with node --expose-gc (npm run bench does)");
  const n = Math.round(100_000 * scale);
  const procs = thisHost().spawnProcs({ actors: n }, { processes: 1 });
  const probe = procs.slice({ actors: 0 }).spawn("probe", MemoryProbe);
  const before = await probe.heap.callOne();
  const t = performance.now();
  const idle = procs.spawn("idle", Idle);
  await idle.initialized;
  const spawnMs = performance.now() - t;
  const after = await probe.heap.callOne();
  const perActor = (after - before) / n;
  report(
    "P7",
    `${n.toLocaleString("en")} idle actors in one process (spawned in ${(spawnMs / 1000).toFixed(1)} s), heap per actor`,
    Math.round(perActor),
    "bytes",
    "",
    "",
    "100,000 actors, ≤ 2,048 bytes each",
    n >= 100_000 && perActor <= 2048,
  );
  await procs.stop();
}
