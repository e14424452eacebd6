// The RL scenario on the test Slurm (run on its submit host by slurm.test.ts, as
// slurm-cases.ts is): a trainer job and two rollout jobs, each asking for a whole
// node, so no two share /tmp, /dev/shm or loopback; they share a curriculum on the
// namespace service of the submit host and move 16 MiB of weights each step by a
// RemoteBuffer the trainer's driver owns (test/fixtures/rl-weights.ts).
import assert from "node:assert/strict";
import { it } from "node:test";
import { Entrypoint } from "../../src/cluster.ts";
import { clusterFixture } from "./cluster-suite.ts";
import { frayActor } from "../job/namespace-suite.ts";
import { weightsRollout, weightsTrainer } from "../fixtures/rl-weights.ts";

const fx = clusterFixture("slurm");

it("RL on three nodes: the trainer's 16 MiB weights reach both rollouts each step by RemoteBuffer; they share one curriculum", async (t) => {
  t.after(() => frayActor(fx.spec, "kill", "weights-curriculum"));
  const node = { cpu: 2 }; // a whole node: each job on a host of its own
  const ids = await Promise.all([
    fx.cluster.launch({ name: "trainer", entrypoint: Entrypoint.fromCallable(weightsTrainer, [3, 2]), resources: node }),
    fx.cluster.launch({ name: "rollout-a", entrypoint: Entrypoint.fromCallable(weightsRollout, ["a", 3]), resources: node }),
    fx.cluster.launch({ name: "rollout-b", entrypoint: Entrypoint.fromCallable(weightsRollout, ["b", 3]), resources: node }),
  ]);
  const infos = await fx.cluster.wait(ids, { timeout: 150, raiseOnFailure: false });
  for (const [i, info] of infos.entries()) {
    assert.equal(info.status, "succeeded", `${info.name}: ${info.errorMessage}\n${(await fx.cluster.logs(ids[i])).join("\n")}`);
  }
  const [line] = await fx.cluster.logs(ids[0]);
  const seen = /^\[replica-0\] trainer on (n\d): 3 steps of 16 MiB read right by rollouts on (n\d),(n\d)$/.exec(line);
  assert.ok(seen, `the trainer printed: ${line}`);
  assert.equal(new Set(seen.slice(1)).size, 3, "trainer and rollouts each ran on a node of its own");
});
