// The driver of cross-host-held.test.ts, run on its own isolated host: a `mesh` job on one worker process on each of
// the two worker hosts given as arguments (`fray worker` addresses); `shared` is a directory every host sees. Prints
// one JSON line per step: a large result read by a task on the other host and by the driver; the same after its
// holder is killed, with retries (made anew) and without (ObjectLostError); values put by a task, read the same way,
// and lost with their worker; after those kills, refs that tasks return, put or run by them, read the same.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createJobContext } from "../../src/job.ts";
import { attachToWorkers } from "../../src/mesh.ts";
import { refCountsOf } from "../../src/job/objects/ref-counts.ts";
import { bigOn, check, checkByGet, heldFiles, putOn, runOn, wrongElements } from "./cross-host-held-tasks.ts";

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
// Where the value is kept: two probes at once take both workers.
const files = await ctx.get([ctx.run(heldFiles), ctx.run(heldFiles)]);
say({ maker: told(tellRead).host, readers, driverWrong: wrongElements(await ctx.get(ref), 1), files });

// Values put by a task: owned by its worker (the head never counts them), read by tasks on both hosts and the driver.
async function readPut(fill: number) {
  const tell = join(shared, `put-${fill}.json`);
  const put = await ctx.get(ctx.run(putOn, fill, tell));
  const readers = await ctx.get([ctx.run(check, put.big, fill), ctx.run(checkByGet, { ref: put.big }, fill)]);
  const driverWrong = wrongElements(await ctx.get(put.big), fill);
  return { putter: told(tell).host, readers, driverWrong, small: await ctx.get(put.small), headCounts: refCountsOf(put.big.id) };
}
say(await readPut(4));

// Results of tasks a task ran (nested tasks): owned by that task's worker (the head keeps no entry), read by tasks on
// both hosts and the driver.
const tellNested = join(shared, "nested.json");
const nested = await ctx.get(ctx.run(runOn, 8, tellNested));
const nestedReaders = await ctx.get([ctx.run(check, nested.big, 8), ctx.run(checkByGet, { ref: nested.big }, 8)]);
say({
  maker: told(tellNested).host,
  readers: nestedReaders,
  driverWrong: wrongElements(await ctx.get(nested.big), 8),
  small: await ctx.get(nested.small),
  headCounts: refCountsOf(nested.big.id),
});

// The putter killed, the driver's read of its put rejects with ObjectLostError naming the put and the worker.
const tellGone = join(shared, "gone.json");
const gone = await ctx.get(ctx.run(putOn, 5, tellGone));
const putter = told(tellGone);
process.kill(putter.pid, "SIGKILL");
say({ worker: workers.indexOf(`tcp://${putter.host}:22222`), ref: gone.big.id, read: await ctx.get(gone.big).then(() => "read", failure) });

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

// After those kills (a worker's failure read here loads compiled fray's runtime, which throws it, beside this driver's
// sources), refs that tasks return still arrive as refs: put by the task, or results of tasks it ran (its worker's too).
const tellRan = join(shared, "ran.json");
const ran = await ctx.get(ctx.run(runOn, 7, tellRan));
const ranRead = { driverWrong: wrongElements(await ctx.get(ran.big), 7), small: await ctx.get(ran.small) };
say({ put: await readPut(6), ran: ranRead });
