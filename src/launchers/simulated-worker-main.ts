// Entry of one of a SimulatedJob's processes: a virtual worker on each port in
// argv[2] (comma-separated), with FRAY_TOKEN; prints their addresses on one
// line, and exits with the launcher (stdin is a pipe from it).
import { runVirtualWorkers } from "../mesh/virtual-workers.ts";

console.log(`listening on ${(await runVirtualWorkers(process.argv[2].split(",").map(Number))).join(" ")}`);
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
