// runtime-bundle.test.ts's client: a plain node process (no loader hooks) on the compiled package.
import { thisHost } from "../dist/mesh.js";
import { WhereAmI } from "./runtime-bundle-actors.mjs";

const procs = thisHost().spawnProcs({ procs: 2 });
try {
  const answers = await procs.spawn("where", WhereAmI).where.call();
  console.log(JSON.stringify(Array.from({ length: answers.size }, (_, i) => answers.get(i))));
} finally {
  await procs.stop();
}
