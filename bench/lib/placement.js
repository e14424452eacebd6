// Where the kernel puts two processes that talk moves a round trip between them by more than what is
// measured: on this VM a wake-up of the other core costs ~25 µs, so a pair that happens to share a core
// and a pair that does not differ by that much, whatever runs in them. Benchmarks that compare a round
// trip with a baseline's (P2, O1) pin both to the same placement first: `taskset` on every thread of a process.
import { execFileSync } from "node:child_process";
import { cpus } from "node:os";

/** Pins every thread of process `pid` to the cores in `list` (taskset's form: "0", "1", "0-3"). */
export function pin(pid, list) {
  execFileSync("taskset", ["-a", "-p", "-c", list, String(pid)], { stdio: "ignore" });
}

/** Every core of the machine, in taskset's form. */
export const allCores = () => `0-${cpus().length - 1}`;

/** The second core where there is one, else the first (a one-core machine has one placement only). */
export const otherCore = () => (cpus().length > 1 ? "1" : "0");
