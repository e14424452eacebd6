// Another job's driver, for test/job/reference-routes.test.ts: joins the
// namespace at argv[2], fetches each key of argv[3] (a JSON list) from the
// named Holder another job filled, uses the reference, and prints one JSON
// line: each key's reading, or the error its use failed with.
//   node --import tsx reference-routes-driver.ts tcp://host:port '["threads:objectRef", …]'
import { createJobContext } from "../../src/job.ts";
import { Holder } from "./reference-holder.ts";
import { use, type Carried } from "./reference-routes-actors.ts";

const [namespace, keys] = [process.argv[2], JSON.parse(process.argv[3]) as string[]];
// Its stdin is a pipe from the test: should the test die, this driver goes with it.
process.stdin.on("end", () => process.exit(2));
process.stdin.resume();
const ctx = createJobContext("threads", { maxWorkers: 1, namespace });
try {
  const holder = await ctx.createActor(Holder, [], { name: "holder", getIfExists: true });
  const readings: Record<string, { ok: unknown } | { error: string }> = {};
  for (const key of keys) {
    try {
      readings[key] = { ok: await use((await ctx.get(holder.fetch.remote(key))) as Carried, ctx) };
      console.error(`reference-routes-driver: used ${key}`); // where it is, should a run hang
    } catch (err) {
      readings[key] = { error: (err as Error).message };
    }
  }
  console.log(JSON.stringify(readings));
} finally {
  await ctx.shutdown();
  process.exit(0); // stdin would keep it running
}
