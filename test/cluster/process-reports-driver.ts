// A cluster job's driver for process-reports.test.ts, as a user writes one: runs a task on the backend
// argv[2] (its process reports to FRAY_REPORT_DIR, as every process of a cluster job does), says "ran", then
// ends, or with argv[3] "serve" goes on serving until it is signalled.
import { createJobContext } from "../../src/job.ts";
import { thisHost } from "../../src/mesh.ts";
import { square } from "../fixtures/tasks.ts";

const backend = process.argv[2] as "threads" | "processes" | "mesh";
await using ctx = createJobContext(backend, backend === "mesh" ? { procs: thisHost().spawnProcs({ workers: 1 }) } : { maxWorkers: 1 });
console.log(`ran ${await ctx.get(ctx.run(square, 7))}`);
if (process.argv[3] === "serve") await new Promise(() => setInterval(() => {}, 1_000));
