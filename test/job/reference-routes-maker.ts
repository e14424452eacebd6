// A job's driver that stores every kind of reference in the named Holder, for the
// cross-host route of test/job/cross-host.test.ts: for each backend of argv[2] (a
// JSON list) it opens a job on the namespace (FRAY_NAMESPACE, FRAY_TOKEN), makes
// each kind with reference-routes-actors.ts' Maker, keeps it under
// `${backend}:${kind}` and prints one JSON line `{ stored: { key: expect } }`;
// then prints `{ received: { backend: n } }` once each port got what the other
// job sent on it, and stays up (its references must stay alive) until stdin ends.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createJobContext, withJobContext, type JobContext, type JobKind } from "../../src/job.ts";
import { thisHost, type ProcMesh } from "../../src/mesh.ts";
import { Holder } from "./reference-holder.ts";
import { KINDS, Maker, Squares } from "./reference-routes-actors.ts";

const backends = JSON.parse(process.argv[2]) as JobKind[];
const say = (o: object) => console.log(JSON.stringify(o));
// Where it is, on stderr (the test's output): a run that hangs says at which step.
const progress = (step: string) => console.error(`reference-routes-maker: ${step}`);
const opened: { ctx: JobContext; procs: ProcMesh[] }[] = [];
try {
  const stored: Record<string, unknown> = {};
  const makers = new Map<string, Maker>();
  for (const backend of backends) {
    const procs = [thisHost().spawnProcs({ workers: 2 })];
    if (backend === "mesh") procs.push(thisHost().spawnProcs({ workers: 2 }));
    const ctx = createJobContext(backend, { maxWorkers: 2, procs: backend === "mesh" ? procs[1] : undefined });
    opened.push({ ctx, procs });
    const maker = new Maker(procs[0].spawn("squares", Squares));
    makers.set(backend, maker);
    const holder = await ctx.createActor(Holder, [], { name: "holder", getIfExists: true });
    progress(`${backend}: the holder answered`);
    for (const kind of KINDS) {
      const carried = await withJobContext(ctx, () => maker.make(kind, `${backend}-${kind}-xhost`));
      await ctx.get(holder.keep.remote(`${backend}:${kind}`, carried));
      progress(`${backend}: stored ${kind}`);
      stored[`${backend}:${kind}`] = carried.expect;
    }
  }
  // Its own refs are garbage now: collected, so the Holder's borrows are all that keeps their values (as they would
  // be, sooner or later, in a driver that runs on).
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  say({ stored });
  const received: Record<string, number> = {};
  for (const [backend, maker] of makers) {
    received[backend] = await maker.received(`${backend}-port-xhost`);
    progress(`${backend}: its port received`);
  }
  say({ received });
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.on("end", resolve));
} finally {
  for (const { ctx, procs } of opened) {
    await ctx.shutdown();
    for (const mesh of procs) await mesh.stop();
  }
}
