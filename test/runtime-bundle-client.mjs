// runtime-bundle.test.ts's client: a node process on the compiled package (loader hooks only if the test gives it some).
// Its workers load actor modules: plain, one that awaits at top level, and one that throws while it runs there.
import { thisHost } from "../dist/mesh.js";
import { WhereAmI } from "./runtime-bundle-actors.mjs";
import { Awaits } from "./runtime-bundle-awaits.mjs";

globalThis.runtimeBundleClient = true;
const { Throws } = await import("./runtime-bundle-throws.mjs");

const procs = thisHost().spawnProcs({ procs: 2 });
try {
  const answers = await procs.spawn("where", WhereAmI).where.call();
  const awaited = (await procs.spawn("awaits", Awaits).greet.call()).get(0);
  const thrown = await procs
    .spawn("throws", Throws)
    .hello.call()
    .then(
      () => "",
      (err) => String(err),
    );
  console.log(JSON.stringify({ answers: Array.from({ length: answers.size }, (_, i) => answers.get(i)), awaited, thrown }));
} finally {
  await procs.stop();
}
