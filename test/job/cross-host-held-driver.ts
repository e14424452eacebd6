// The driver of cross-host-held.test.ts, run on its own isolated host: a `mesh` job on one worker process on each of
// the two worker hosts given as arguments (`fray worker` addresses); `shared` is a directory every host sees. Prints
// one JSON line per step: a large result read by a task on the other host and by the driver; the same after its
// holder is killed, with retries (made anew) and without (ObjectLostError).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createJobContext } from "../../src/job.ts";
import { attachToWorkers } from "../../src/mesh.ts";
import { bigOn, check, checkByGet, wrongElements } from "./cross-host-held-tasks.ts";

const [shared, ...workers] = process.argv.slice(2);
const say = (o: object) => console.log(JSON.stringify(o));
const told = (file: string) => JSON.parse(readFileSync(file, "utf8")) as { pid: number; host: string };
const failure = (err: unknown) => ({ name: (err as Error).name, message: (err as Error).message });

await using ctx = createJobContext("mesh", { procs: attachToWorkers(workers).spawnProcs({ workers: 1 }) });

// Read by tasks on both hosts (two at once take both workers) and by the driver.
const tellRead = join(shared, "read.json");
const ref = ctx.run(bigOn, 1, tellRead);
await ctx.wait([ref]);
const readers = await ctx.get([ctx.run(check, ref, 1), ctx.run(checkByGet, { ref }, 1)]);
say({ maker: told(tellRead).host, readers, driverWrong: wrongElements(await ctx.get(ref), 1) });

// The holder killed, its task with a retry left: every read gets the value made anew.
const tellRetry = join(shared, "retry.json");
const again = ctx.createTask(bigOn, [2, tellRetry], { maxRetries: 1 });
await ctx.wait([again]);
const killed = told(tellRetry);
process.kill(killed.pid, "SIGKILL");
const retried = await Promise.all([
  ctx.get(again).then((big) => wrongElements(big, 2), failure),
  ctx.get(ctx.createTask(check, [again, 2], { maxRetries: 1 })).then((r) => r.wrong, failure),
  ctx.get(ctx.createTask(checkByGet, [{ ref: again }, 2], { maxRetries: 1 })).then((r) => r.wrong, failure),
]);
say({ killedOn: killed.host, retried, remade: told(tellRetry).pid !== killed.pid });

// The holder killed, no retries: the driver's read and a task's reject with ObjectLostError naming the holder.
const tellLost = join(shared, "lost.json");
const lost = ctx.run(bigOn, 3, tellLost);
await ctx.wait([lost]);
const holder = told(tellLost);
process.kill(holder.pid, "SIGKILL");
const reads = await Promise.all([
  ctx.get(lost).then(() => "read", failure),
  ctx.get(ctx.createTask(check, [lost, 3], { maxRetries: 1 })).then(() => "read", failure),
]);
say({ killedOn: holder.host, worker: workers.indexOf(`tcp://${holder.host}:22222`), lostRef: lost.id, reads });
