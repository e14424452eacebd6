// Every kind of reference along every route, on every backend (README's
// "References go anywhere"): ObjectRefs, JobContext actor handles, actor
// meshes and slices, Ports, RemoteBuffers and DistributedArrays, sent as a
// task argument, as an actor-call argument, returned to the driver, and stored
// in a named actor — fetched back by this driver, and used by another job's
// driver (a process of its own). Each either works, shown by using it (call,
// read, send on it), or is refused at the send with an error naming the route.
// The named actor's module imports nothing from fray (reference-holder.ts).
import assert from "node:assert/strict";
import { execFile, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { createJobContext, withJobContext, type ActorHandle, type JobContext, type JobKind } from "../../src/job.ts";
import { thisHost, type ActorMesh, type ProcMesh } from "../../src/mesh.ts";
import { clusterFixture } from "../cluster/cluster-suite.ts";
import { track } from "../helpers.ts";
import { Holder } from "./reference-holder.ts";
import { KINDS, Maker, SENT, Squares, User, use, useInTask, type Carried, type Kind } from "./reference-routes-actors.ts";

const DRIVER = fileURLToPath(new URL("./reference-routes-driver.ts", import.meta.url));
const BACKENDS = ["sync", "threads", "processes", "mesh"] as const satisfies readonly JobKind[];
type Backend = (typeof BACKENDS)[number];

/** What one backend's cases share: its context, a Maker in this driver and one in the job, a User actor, the named Holder. */
interface Job {
  readonly ctx: JobContext;
  readonly maker: Maker;
  readonly makerActor: ActorHandle<Maker>;
  readonly user: ActorHandle<User>;
  /** Through a context on the namespace: the sync backend has none, so its cases store through the processes one's. */
  readonly holder: ActorHandle<Holder>;
  readonly holderCtx: JobContext;
}

/** A sync job's values and handles stay in its process: sending one to the namespace's actor is refused, naming the call. */
const REFUSED_FROM_SYNC: Partial<Record<Kind, RegExp>> = {
  objectRef: /^SerializationError: the arguments of Holder\.keep: ObjectRef\(sync-\d+\) belongs to a sync job context, which keeps its values in this process/,
  actorHandle: /^SerializationError: the arguments of Holder\.keep: an actor handle of a sync job context calls an actor in this process: it cannot be sent/,
};

describe("every reference along every route, on every backend", () => {
  const jobs = new Map<Backend, Job>();
  let procs: ProcMesh;
  let squares: ActorMesh<Squares>;
  let namespace: string;
  let token: string;
  /** Other jobs' drivers still running: killed if the test ends first. */
  const drivers = new Set<ChildProcess>();
  after(async () => {
    for (const child of drivers) child.kill("SIGKILL");
    for (const job of jobs.values()) await job.ctx.shutdown();
    await procs?.stop();
    delete process.env.FRAY_TOKEN;
  });
  const fx = clusterFixture("local"); // its namespace service ends after the contexts above

  before(async () => {
    const service = await fx.cluster.namespace();
    ({ address: namespace, token } = service);
    process.env.FRAY_TOKEN = token; // before this process makes its first connection
    procs = track(thisHost().spawnProcs({ workers: 2 }));
    squares = procs.spawn("squares", Squares);
    const made = BACKENDS.map(async (backend) => {
      const ctx =
        backend === "sync"
          ? createJobContext("sync")
          : createJobContext(backend, { maxWorkers: 2, namespace, procs: backend === "mesh" ? track(thisHost().spawnProcs({ workers: 2 })) : undefined });
      const [makerActor, user] = await Promise.all([ctx.createActor(Maker, [squares]), ctx.createActor(User)]);
      return { ctx, maker: new Maker(squares), makerActor, user };
    });
    const [sync, ...others] = await Promise.all(made);
    for (const [i, backend] of BACKENDS.slice(1).entries()) {
      const { ctx } = others[i];
      jobs.set(backend, { ...others[i], holder: await ctx.createActor(Holder, [], { name: "holder", getIfExists: true }), holderCtx: ctx });
    }
    const processes = jobs.get("processes")!;
    jobs.set("sync", { ...sync, holder: processes.holder, holderCtx: processes.ctx });
  });

  /** A reference of `kind` made in this driver, with `job`'s context as the one running. */
  const madeHere = (job: Job, kind: Kind, tag: string) => withJobContext(job.ctx, () => job.maker.make(kind, tag));

  /** Asserts `got` is what using the reference reads, and, for a port, that what was sent on it arrived. */
  async function check(got: unknown, carried: Carried, arrived: () => Promise<number>): Promise<void> {
    assert.deepEqual(got, carried.expect);
    if (carried.kind === "port") assert.equal(await arrived(), SENT);
  }

  for (const backend of BACKENDS) {
    describe(`on ${backend}`, () => {
      const job = () => jobs.get(backend)!;

      for (const kind of KINDS) {
        it(`${kind}: a task argument, used in the task`, async () => {
          const { ctx, maker } = job();
          const tag = `${backend}-${kind}-task`;
          const carried = await madeHere(job(), kind, tag);
          await check(await ctx.get(ctx.run(useInTask, carried)), carried, () => maker.received(tag));
        });

        it(`${kind}: an actor-call argument, used in the actor`, async () => {
          const { ctx, maker, user } = job();
          const tag = `${backend}-${kind}-actor`;
          const carried = await madeHere(job(), kind, tag);
          await check(await ctx.get(user.use.remote(carried)), carried, () => maker.received(tag));
        });

        it(`${kind}: made by an actor, returned to the driver, used there`, async () => {
          const { ctx, makerActor } = job();
          const tag = `${backend}-${kind}-returned`;
          const carried = (await ctx.get(makerActor.make.remote(kind, tag))) as Carried;
          await check(await use(carried, ctx), carried, () => ctx.get(makerActor.received.remote(tag)));
        });

        it(`${kind}: stored in a named actor whose module imports nothing from fray, fetched back, used by this driver`, async () => {
          const { ctx, maker, holder, holderCtx } = job();
          const tag = `${backend}-${kind}-named`;
          const carried = await madeHere(job(), kind, tag);
          const kept = holderCtx.get(holder.keep.remote(`${backend}:${kind}`, carried));
          const refused = backend === "sync" ? REFUSED_FROM_SYNC[kind] : undefined;
          if (refused) return assert.rejects(kept, refused);
          await kept;
          const fetched = (await holderCtx.get(holder.fetch.remote(`${backend}:${kind}`))) as Carried;
          await check(await use(fetched, ctx), carried, () => maker.received(tag));
        });
      }

      it("another job's driver, in a process of its own, uses every reference this job stored in the named actor", async () => {
        const stored = KINDS.filter((kind) => !(backend === "sync" && REFUSED_FROM_SYNC[kind]));
        const run = promisify(execFile)(process.execPath, ["--import", "tsx", DRIVER, namespace, JSON.stringify(stored.map((kind) => `${backend}:${kind}`))], {
          env: { ...process.env, FRAY_TOKEN: token },
          timeout: 120_000,
          killSignal: "SIGKILL",
        });
        drivers.add(run.child);
        const { stdout } = await run.finally(() => drivers.delete(run.child));
        const readings = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
        const { holder, holderCtx, maker } = job();
        const expected: Record<string, unknown> = {};
        for (const kind of stored) {
          const carried = (await holderCtx.get(holder.fetch.remote(`${backend}:${kind}`))) as Carried;
          expected[`${backend}:${kind}`] = { ok: carried.expect };
        }
        assert.deepEqual(readings, expected);
        if (stored.includes("port")) assert.equal(await maker.received(`${backend}-port-named`), SENT, "what the other driver sent arrived");
      });
    });
  }
});
