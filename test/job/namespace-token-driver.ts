// A driver that joins a namespace with createJobContext's token option, FRAY_TOKEN unset:
// its connections to the namespace, to the actor the namespace hosts and to its own
// worker (which finds a named actor through it) all prove that token. Prints what it
// got, or the error, as JSON. Run by namespace.test.ts.
import { createJobContext } from "../../src/job.ts";
import { Restartable } from "../fixtures/namespace-actors.ts";
import { incrementNamed } from "../fixtures/tasks.ts";

const [namespace, token] = process.argv.slice(2);
await using ctx = createJobContext("processes", { maxWorkers: 1, namespace, token });
try {
  const hosted = await ctx.createActor(Restartable, [], { name: "token-hosted", preemptible: false }); // in a process of the namespace's
  const calls = await ctx.get(hosted.bump.remote());
  const fromTask = await ctx.get(ctx.run(incrementNamed, "token-counter"));
  console.log(JSON.stringify({ calls, fromTask }));
} catch (err) {
  console.log(JSON.stringify({ error: (err as Error).message }));
}
