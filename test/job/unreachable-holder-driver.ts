// The driver of unreachable-holder.test.ts, run on its own isolated host: a `mesh` job on one worker process (two
// task slots) on each of the two worker hosts given as arguments; `shared` is a directory every host sees. It makes
// three large results: `other` on the first worker, `remade` (a retry left) and `lost` (none) on the second. It says
// where each was made, waits for the end of stdin (the test has cut the second worker's host off the network by then),
// and reads them all at once — by the driver's get, and by a task on the first worker's host — saying what each read
// gave and how long after the cut it ended; then reads `other` again, by the driver and by a task given it.
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createJobContext } from "../../src/job.ts";
import { attachToWorkers } from "../../src/mesh.ts";
import { bigOn, check, wrongElements } from "./cross-host-held-tasks.ts";
import { bigNear, checkByGetNear } from "./unreachable-holder-tasks.ts";

const [shared, ...workers] = process.argv.slice(2);
const say = (o: object) => console.log(JSON.stringify(o));
const told = (name: string) => JSON.parse(readFileSync(join(shared, `${name}.json`), "utf8")) as { pid: number; host: string };
const tell = (name: string) => join(shared, `${name}.json`);

await using ctx = createJobContext("mesh", { procs: attachToWorkers(workers).spawnProcs({ workers: 1 }), resources: { cpu: 2 } });

// Submitted together: `other` takes a slot of the first worker, so `remade` goes to the second (more room); `lost`
// goes where `remade` is held.
const other = ctx.createTask(bigOn, [3, tell("other")]);
const remade = ctx.createTask(bigOn, [1, tell("remade")], { maxRetries: 1 });
await ctx.wait([other, remade], { numReturns: 2 });
const lost = ctx.createTask(bigNear, [2, tell("lost"), remade]);
await ctx.wait([lost]);
const made = { other: told("other"), remade: told("remade"), lost: told("lost") };
// Read across hosts before the cut, by the driver and a task on the first worker: each has a bulk connection to the
// second worker's process when the cut comes, which a cut network does not close.
const before = [wrongElements(await ctx.get(remade), 1), (await ctx.get(ctx.createTask(checkByGetNear, [{ ref: remade }, 1, other]))).wrong];
say({ made: { other: made.other.host, remade: made.remade.host, lost: made.lost.host }, before, lostRef: lost.id });

await once(createInterface({ input: process.stdin }), "close"); // the test cut the host, then ended stdin
const cut = performance.now();
const outcome = (read: Promise<unknown>, wrong: (v: never) => number) =>
  read.then(
    (v) => ({ wrong: wrong(v as never), ms: Math.round(performance.now() - cut) }),
    (err: Error) => ({ name: err.name, message: err.message, ms: Math.round(performance.now() - cut) }),
  );
const byTask = (r: { host: string; wrong: number }) => (r.host === made.other.host ? r.wrong : -1); // -1: not on the reachable host
// Reader tasks run on the first worker, next to `other`; with no retries, so that none is hidden by a run again.
const reads = await Promise.all([
  outcome(ctx.get(remade), (v: Float64Array) => wrongElements(v, 1)),
  outcome(ctx.get(ctx.createTask(checkByGetNear, [{ ref: remade }, 1, other])), byTask),
  outcome(ctx.get(lost), (v: Float64Array) => wrongElements(v, 2)),
  outcome(ctx.get(ctx.createTask(checkByGetNear, [{ ref: lost }, 2, other])), byTask),
]);
say({ reads, remadeOn: told("remade").host });

const after = await Promise.all([
  outcome(ctx.get(other), (v: Float64Array) => wrongElements(v, 3)),
  outcome(ctx.get(ctx.createTask(check, [other, 3])), byTask),
]);
say({ other: after });
