// Run as a program by test/cluster/client-token.test.ts: a user's script that first works locally — a mesh of its
// own (argv[3] "mesh") or getJobContext()'s tasks ("context") — and then opens a Client of the cluster SPEC
// (argv[2]), whose namespace has its own token, and uses both.
import { createClient } from "../../src/cluster.ts";
import { getJobContext } from "../../src/job.ts";
import { thisHost } from "../../src/mesh.ts";
import { Introspect } from "../fixtures/client-actors.ts";
import { Counter, square } from "../fixtures/tasks.ts";

const [spec, first] = process.argv.slice(2);
const procs = first === "mesh" ? thisHost().spawnProcs({ procs: 1 }) : null;
const counters = procs?.spawn("counters", Counter, 1); // starts at 1
const ctx = first === "context" ? getJobContext() : null;
const local = async () => (counters ? counters.increment.choose(1) : ctx!.get(ctx!.run(square, 7)));
console.log("local", await local());
const client = createClient(spec);
const actor = await client.createActor(Introspect, [], { name: `token-probe-${first}` });
console.log("cluster", await client.get(actor.ping.remote()));
console.log("local again", await local());
await client.shutdown();
await procs?.stop();
await ctx?.shutdown();
