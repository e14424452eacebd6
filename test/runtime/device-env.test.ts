// The rank environment of device programs: every proc of a mesh gets RANK,
// WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE (torchrun's conventions) and, with a
// `gpus` dimension, CUDA_VISIBLE_DEVICES — on this host and on remote workers.
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { ProcessJob } from "../../src/launchers.ts";
import { thisHost, type ProcMesh } from "../../src/mesh.ts";
import { EnvReader } from "../fixtures/actors.ts";
import { killJob, track } from "../helpers.ts";

/** Sets (or, with undefined, removes) variables of this process for one test; restored after it. */
function withEnv(t: TestContext, vars: Record<string, string | undefined>): void {
  const saved = Object.keys(vars).map((k) => [k, process.env[k]] as const);
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  t.after(() => {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}

/** The rank variables each proc of `procs` sees (read by an actor on each); stops `procs` after. */
async function envsOf(procs: ProcMesh): Promise<Array<Record<string, string | null>>> {
  await using owned = procs;
  return (await owned.spawn("env", EnvReader).read.call()).values();
}

const row = (rank: number, world: number, local: number, localWorld: number, cuda: string | null) => ({
  RANK: String(rank),
  WORLD_SIZE: String(world),
  LOCAL_RANK: String(local),
  LOCAL_WORLD_SIZE: String(localWorld),
  CUDA_VISIBLE_DEVICES: cuda,
});

describe("rank environment on this host", () => {
  it("spawnProcs({gpus: 2}): each proc gets its rank, the world size and its GPU", async (t) => {
    withEnv(t, { CUDA_VISIBLE_DEVICES: undefined, RANK: "99" });
    assert.deepEqual(await envsOf(track(thisHost().spawnProcs({ gpus: 2 }))), [row(0, 2, 0, 2, "0"), row(1, 2, 1, 2, "1")]);
  });

  it("without a gpus dimension: rank variables only; CUDA_VISIBLE_DEVICES is the parent's", async (t) => {
    withEnv(t, { CUDA_VISIBLE_DEVICES: "3" });
    assert.deepEqual(await envsOf(track(thisHost().spawnProcs({ workers: 2 }))), [row(0, 2, 0, 2, "3"), row(1, 2, 1, 2, "3")]);
  });

  it("a host that restricts its GPUs gives each proc its n-th visible device; too few is an error naming them", async (t) => {
    withEnv(t, { CUDA_VISIBLE_DEVICES: "5,7" });
    assert.deepEqual(
      (await envsOf(track(thisHost().spawnProcs({ gpus: 2 })))).map((e) => e.CUDA_VISIBLE_DEVICES),
      ["5", "7"],
    );
    assert.throws(
      () => thisHost().spawnProcs({ gpus: 3 }),
      (e: Error) =>
        e instanceof RangeError &&
        /the proc at gpus 2 needs a GPU, but this host's CUDA_VISIBLE_DEVICES=5,7 lists 2; spawn at most 2 procs along 'gpus' per host/.test(e.message),
    );
  });

  it("packed procs ({processes: 1}) share a process: no rank variables, not even inherited ones", async (t) => {
    withEnv(t, { CUDA_VISIBLE_DEVICES: "0,1", RANK: "99", WORLD_SIZE: "100", LOCAL_RANK: "9", LOCAL_WORLD_SIZE: "10" });
    const none = { RANK: null, WORLD_SIZE: null, LOCAL_RANK: null, LOCAL_WORLD_SIZE: null, CUDA_VISIBLE_DEVICES: "0,1" };
    assert.deepEqual(await envsOf(track(thisHost().spawnProcs({ gpus: 2 }, { processes: 1 }))), [none, none]);
  });

  it("threads: rank variables in each thread's process.env; CUDA_VISIBLE_DEVICES stays the process's", async (t) => {
    withEnv(t, { CUDA_VISIBLE_DEVICES: undefined });
    assert.deepEqual(await envsOf(thisHost().spawnProcs({ gpus: 2 }, { threads: true })), [row(0, 2, 0, 2, null), row(1, 2, 1, 2, null)]);
  });
});

it("ProcessJob with 2 hosts × {gpus: 2}: RANK 0..3, LOCAL_RANK 0..1, a GPU per proc", async (t) => {
  withEnv(t, { CUDA_VISIBLE_DEVICES: undefined });
  const job = new ProcessJob({ meshes: { trainers: 2 } });
  try {
    const { trainers } = await job.state();
    assert.deepEqual(await envsOf(trainers.spawnProcs({ gpus: 2 })), [row(0, 4, 0, 2, "0"), row(1, 4, 1, 2, "1"), row(2, 4, 0, 2, "0"), row(3, 4, 1, 2, "1")]);
  } finally {
    await killJob(job);
  }
});

it("a remote host without a GPU for a rank: initialized rejects naming its CUDA_VISIBLE_DEVICES", async (t) => {
  withEnv(t, { CUDA_VISIBLE_DEVICES: "4" }); // the worker inherits it: its host has one visible GPU
  const job = new ProcessJob({ meshes: { one: 1 } });
  try {
    const { one } = await job.state();
    await using procs = one.spawnProcs({ gpus: 2 });
    await assert.rejects(procs.initialized, /could not start a proc at .*: the proc at gpus 1 needs a GPU, but this host's CUDA_VISIBLE_DEVICES=4 lists 1/);
    const first = procs.slice({ gpus: { start: 0, stop: 1 } }).spawn("env", EnvReader);
    assert.deepEqual(
      (await first.read.call()).values().map((e) => e.CUDA_VISIBLE_DEVICES),
      ["4"],
    );
  } finally {
    await killJob(job);
  }
});
