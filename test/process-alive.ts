// Whether a process still runs, for the tests (through helpers.ts) and the chaos run. No test hooks here: the chaos
// run is also a program of its own (scripts/chaos.ts), where one would print a test report.
import { existsSync, readFileSync } from "node:fs";

/** Whether `pid` still runs: a zombie (ended, its new parent not having reaped it yet) does not. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return !existsSync("/proc/self/stat"); // gone since the kill(pid, 0); or no /proc here, and that kill is all there is
  }
}
