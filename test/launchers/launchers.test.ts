// Launchers provision hosts and return HostMeshes. ProcessJob's hosts are local
// `fray worker` processes, reached over authenticated TCP.
import assert from "node:assert/strict";
import { it } from "node:test";
import { ProcessJob } from "../../src/launchers.ts";
import { Counter } from "../fixtures/actors.ts";
import { isAlive, killJob, waitForExit } from "../helpers.ts";

it("ProcessJob: state() gives a HostMesh per mesh; kill() ends every worker", async () => {
  const job = new ProcessJob({ meshes: { trainers: 2, evaluators: 1 } });
  try {
    const { trainers, evaluators } = await job.state();
    assert.deepEqual(trainers.extent.dims, { hosts: 2 });
    assert.deepEqual(evaluators.extent.dims, { hosts: 1 });
    const procs = trainers.spawnProcs({ gpus: 2 });
    const counters = procs.spawn("counters", Counter, 3);
    assert.deepEqual((await counters.get.call()).values(), [3, 3, 3, 3]);
    await counters.stop();
    await procs.stop();
  } finally {
    await killJob(job);
  }
  assert.throws(() => new ProcessJob({ meshes: { trainers: 0 } }), /mesh 'trainers' asks for 0 hosts/);
});

it("ProcessJob declared with await using gives its workers back when its block ends", async () => {
  let pids: number[];
  {
    await using job = new ProcessJob({ meshes: { hosts: 1 } });
    await job.state();
    pids = job.pids;
    assert.deepEqual(pids.map(isAlive), [true]);
  }
  await waitForExit(pids);
  assert.deepEqual(pids.filter(isAlive), []);
});
