// A user's program for worker-process-group.test.ts: a worker process whose actor started a subprocess; prints
// their pids as JSON, then runs until it is killed.
import { thisHost } from "../../src/mesh.ts";
import { SubprocessStarter } from "./worker-process-group-actors.ts";

const procs = thisHost().spawnProcs({ workers: 1 });
const [pids] = (await procs.spawn("starter", SubprocessStarter).start.call()).values();
console.log(JSON.stringify(pids));
setInterval(() => {}, 60_000);
