// RL with a shared curriculum: a trainer job and N rollout jobs on a cluster
// (this machine by default; `--cluster slurm` on a Slurm cluster), sharing one
// named curriculum actor; the trainer's weights reach the rollouts each
// iteration by RemoteBuffer.
//   npx tsx examples/rl-curriculum/main.ts [--rollouts 2] [--iterations 12] [--weights-mib 16] [--cluster local]
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { createCluster, Entrypoint } from "fray/cluster";
import { rollout, trainer } from "./jobs.js";

const { values } = parseArgs({
  options: {
    rollouts: { type: "string", default: "2" },
    iterations: { type: "string", default: "12" },
    "weights-mib": { type: "string", default: "16" },
    cluster: { type: "string", default: "local" },
  },
});
const [rollouts, iterations, mib] = [Number(values.rollouts), Number(values.iterations), Number(values["weights-mib"])];
const cluster = createCluster(values.cluster!);
const name = `curriculum-${randomBytes(3).toString("hex")}`; // this run's own curriculum

const ids = await Promise.all([
  cluster.launch({ name: "trainer", entrypoint: Entrypoint.fromCallable(trainer, [name, rollouts, iterations, mib]) }),
  ...Array.from({ length: rollouts }, (_, i) => cluster.launch({ name: `rollout-${i}`, entrypoint: Entrypoint.fromCallable(rollout, [name, i, iterations]) })),
]);
try {
  await cluster.wait(ids, { timeout: 600 }); // a JobFailedError names every job that did not succeed
  for (const line of await cluster.logs(ids[0])) console.log(line);
  console.log(`${rollouts} rollouts read ${iterations} × ${mib} MiB of weights from the trainer`);
} finally {
  await cluster.killActor(name).catch(() => {}); // detached: it would outlive the jobs
}
