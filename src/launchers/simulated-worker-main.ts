// Entry of one of a SimulatedJob's processes: argv[2] virtual workers on ports
// taken in turn from argv[3] (comma-separated), with FRAY_TOKEN; prints their
// addresses on one line, and exits with the launcher (stdin is a pipe from it).
import { runVirtualWorkers } from "../mesh/virtual-workers.ts";

console.log(`listening on ${(await runVirtualWorkers(Number(process.argv[2]), process.argv[3].split(",").map(Number))).join(" ")}`);
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
