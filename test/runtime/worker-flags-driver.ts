// Started by worker-flags.test.ts with flags of node's test runner that take their value as the next argument:
// a `processes` job runs one task and prints the pid it ran in.
import { createJobContext } from "../../src/job.ts";
import { pidOf } from "../job/object-spill-tasks.ts";

await using ctx = createJobContext("processes", { maxWorkers: 1 });
console.log(JSON.stringify({ pid: await ctx.get(ctx.run(pidOf)) }));
