// Entry of a launcher's worker process: serve at argv[2] with FRAY_TOKEN, and
// exit with the launcher (stdin is a pipe from it).
import { runWorker } from "../mesh/workers.ts";

console.log(`listening on ${await runWorker({ listen: process.argv[2] })}`);
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
