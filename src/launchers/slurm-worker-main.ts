// Entry of a SlurmJob's worker (one per node, started by srun): serve on the
// job's port, then write this node's address (its host name, or
// FRAY_WORKER_HOST) into the job directory for the client.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { config } from "./settings.ts";
import { runWorker } from "../mesh/workers.ts";

const [dir, tokenFile, portArg] = process.argv.slice(2);
const node = Number(process.env.SLURM_NODEID ?? 0);
const port = Number(portArg);
const host = config.workerHost ?? hostname();
const addr = await runWorker({ listen: `tcp://${host}:${port}@tcp://0.0.0.0:${port}`, token: readFileSync(tokenFile, "utf8").trim() }).catch((err: Error) => {
  console.error(`fray worker ${node} (${process.env.SLURMD_NODENAME}): ${err.message}`); // ends the job: srun --kill-on-bad-exit
  process.exit(1);
});
const file = join(dir, `worker-${node}.json`);
writeFileSync(`${file}.tmp`, JSON.stringify({ node, addr, name: process.env.SLURMD_NODENAME }));
renameSync(`${file}.tmp`, file);
console.log(`fray worker ${node} (${process.env.SLURMD_NODENAME}) listening on ${addr}`);
