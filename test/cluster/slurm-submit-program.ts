// Run by slurm-adoption-cases.ts as a user's client on one host: submits job NAME (a long sleep) to the cluster
// SPEC (argv[2], argv[3]) and prints the id of the job its handle follows.
import { createClient, Entrypoint } from "../../src/cluster.ts";

const [spec, name] = process.argv.slice(2);
const client = createClient(spec);
const job = await client.submit({ name, entrypoint: Entrypoint.fromBinary("sleep", ["600"]) });
console.log(job.jobId);
await client.shutdown();
