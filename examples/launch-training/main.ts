// Launching a training job and waiting for it, as Marin's launcher does: an
// entrypoint with resources, an environment (this directory as the workspace, an
// npm package, variables), replicas and retries; its logs streamed as it runs.
//   npx tsx examples/launch-training/main.ts [--replicas 2] [--epochs 10] [--rows 20000] [--crash-at 3] [--cluster local]
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createCluster, Entrypoint, ResourceConfig } from "fray/cluster";

const { values } = parseArgs({
  options: {
    replicas: { type: "string", default: "2" },
    epochs: { type: "string", default: "10" },
    rows: { type: "string", default: "20000" },
    "crash-at": { type: "string", default: "3" },
    cluster: { type: "string", default: "local" },
  },
});
const cluster = createCluster(values.cluster!);
const id = await cluster.launch({
  name: `train-${randomBytes(3).toString("hex")}`,
  entrypoint: Entrypoint.fromBinary("node", ["train.mjs"]),
  resources: ResourceConfig.withCpu({ cpu: 1, ram: "512m" }),
  replicas: Number(values.replicas), // gang-scheduled: all start together
  environment: {
    workspace: fileURLToPath(new URL(".", import.meta.url)), // copied; the job runs in the copy
    npmPackages: ["seedrandom@3.0.5"],
    envVars: { EPOCHS: values.epochs!, ROWS: values.rows!, CRASH_AT_EPOCH: values["crash-at"]! },
  },
  maxRetriesFailure: 1, // a replica that fails is started again once
});
console.log(`launched ${id}`);
for await (const line of cluster.monitor(id)) console.log(line); // everything so far, then live, until the job ends
const info = await cluster.wait(id, { raiseOnFailure: false }); // its JobInfo even if it failed
console.log(`${id} ${info.status}: ${info.failures} failure(s) retried`);
process.exitCode = info.status === "succeeded" ? 0 : 1;
