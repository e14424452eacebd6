// The training program the launcher starts as a job (plain Node, as any binary
// would be): one replica of data-parallel-style linear regression. Each replica
// trains on its own shard (FRAY_REPLICA_ID of FRAY_REPLICA_COUNT), drawn with the
// `seedrandom` package the job's environment installs, checkpoints every epoch,
// and resumes from its checkpoint when started again. With CRASH_AT_EPOCH set,
// replica 1's first attempt dies there, as a flaky node would.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import seedrandom from "seedrandom";

const replica = Number(process.env.FRAY_REPLICA_ID);
const replicas = Number(process.env.FRAY_REPLICA_COUNT);
const epochs = Number(process.env.EPOCHS ?? 10);
const rows = Number(process.env.ROWS ?? 20000);
const crashAt = process.env.CRASH_AT_EPOCH === undefined ? -1 : Number(process.env.CRASH_AT_EPOCH);
const checkpoint = `checkpoint-${replica}.json`; // in the job's own copy of the workspace, which every attempt shares

// y = 3·x₀ − 2·x₁ + 0.5 + noise
const random = seedrandom(`shard-${replica}-of-${replicas}`);
const data = Array.from({ length: rows }, () => {
  const x = [random() * 2 - 1, random() * 2 - 1];
  return { x, y: 3 * x[0] - 2 * x[1] + 0.5 + (random() - 0.5) * 0.1 };
});

let state = { epoch: 0, w: [0, 0], b: 0 };
if (existsSync(checkpoint)) {
  state = JSON.parse(readFileSync(checkpoint, "utf8"));
  console.log(`replica ${replica}: resumed from its checkpoint at epoch ${state.epoch}`);
}
const loss = () => data.reduce((s, { x, y }) => s + (state.w[0] * x[0] + state.w[1] * x[1] + state.b - y) ** 2, 0) / rows;
for (; state.epoch < epochs;) {
  if (state.epoch === crashAt && replica === 1 && !existsSync("crashed-once")) {
    writeFileSync("crashed-once", "");
    throw new Error(`replica ${replica} lost its accelerator at epoch ${state.epoch}`);
  }
  const grad = [0, 0, 0]; // one full-batch gradient step per epoch
  for (const { x, y } of data) {
    const err = state.w[0] * x[0] + state.w[1] * x[1] + state.b - y;
    grad[0] += (2 * err * x[0]) / rows;
    grad[1] += (2 * err * x[1]) / rows;
    grad[2] += (2 * err) / rows;
  }
  state.w[0] -= 0.7 * grad[0];
  state.w[1] -= 0.7 * grad[1];
  state.b -= 0.7 * grad[2];
  state.epoch++;
  writeFileSync(checkpoint, JSON.stringify(state));
  console.log(`replica ${replica}: epoch ${state.epoch}/${epochs} loss ${loss().toFixed(5)}`);
}
console.log(`replica ${replica}: done w=[${state.w.map((v) => v.toFixed(2))}] b=${state.b.toFixed(2)}`);
