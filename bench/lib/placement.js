// Where the kernel puts two processes that talk moves a round trip between them by more than what is
// measured: on this VM a wake-up of the other core costs ~25 µs, so a pair that happens to share a core
// and a pair that does not differ by that much, whatever runs in them. Benchmarks that compare a round
// trip with a baseline's (P2, O1, P1-latency) pin both to the same placement first: `taskset` on every thread of a process.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { cpus } from "node:os";

/** Pins every thread of process `pid` to the cores in `list` (taskset's form: "0", "1", "0-3"). */
export function pin(pid, list) {
  execFileSync("taskset", ["-a", "-p", "-c", list, String(pid)], { stdio: "ignore" });
}

/** Pins the one thread `tid` (any process's) to the cores in `list`. */
export function pinThread(tid, list) {
  execFileSync("taskset", ["-p", "-c", list, String(tid)], { stdio: "ignore" });
}

/** Every core of the machine, in taskset's form. */
export const allCores = () => `0-${cpus().length - 1}`;

/** The second core where there is one, else the first (a one-core machine has one placement only). */
export const otherCore = () => (cpus().length > 1 ? "1" : "0");

/** The ids of the threads of process `pid` (the first is `pid` itself, its main thread). */
export const threadIds = (pid = process.pid) => readdirSync(`/proc/${pid}/task`).map(Number);

/** Clock ticks of CPU (user + system) thread `tid` of process `pid` has used. */
export function threadTicks(pid, tid) {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]); // utime, stime: fields 14 and 15 of proc(5)
}

/** Every process descended from `pid`: its children, theirs, … */
export function descendants(pid = process.pid) {
  const children = threadIds(pid).flatMap((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ").filter(Boolean).map(Number);
    } catch {
      return []; // the thread ended meanwhile
    }
  });
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** The cores thread `tid` may run on, as the kernel has them (/proc/TID/status: Cpus_allowed_list). */
export function allowedCores(tid) {
  return /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(`/proc/${tid}/status`, "utf8"))[1];
}

/**
 * What a task system started in this process to run its workers: the threads new since `before` (threadIds()
 * taken before the system started) that have run code (a worker thread bootstraps a V8 isolate and its
 * runtime: tens of ms of CPU; a thread that never ran is none of its workers), and every process descended
 * from this one. Throws unless they are `count` workers in all.
 */
export function workersOf(before, count) {
  const known = new Set(before);
  const threads = threadIds().filter((tid) => !known.has(tid) && threadTicks(process.pid, tid) > 0);
  const processes = descendants();
  if (threads.length + processes.length !== count) {
    throw new Error(
      `expected ${count} workers, found ${threads.length} new threads that ran (${threads.join(", ") || "none"}) and ` +
        `${processes.length} child processes (${processes.join(", ") || "none"}): wait until the system has started its workers`,
    );
  }
  return { threads, processes };
}

/**
 * The placements P1-latency compares, each as the cores of [this process's threads, the workers]:
 *   split:    this process on core 0, the workers (their threads, or every thread of their processes) on core 1;
 *   one-core: everything on core 0;
 *   unpinned: every core for every thread, where the kernel chooses.
 */
const placements = {
  split: () => ["0", otherCore()],
  "one-core": () => ["0", "0"],
  unpinned: () => [allCores(), allCores()],
};
export const placementNames = Object.keys(placements);

/**
 * Pins this process and `workers` (from workersOf) to `placement`, then reads back every thread's allowed
 * cores and throws if one is not as asked. Returns what it read: [[what, tid, cores], …].
 */
export function place(workers, placement) {
  if (!placements[placement]) throw new Error(`no placement '${placement}'; the placements are ${placementNames.join(", ")}`);
  const [head, worker] = placements[placement]();
  pin(process.pid, head);
  for (const tid of workers.threads) pinThread(tid, worker);
  for (const pid of workers.processes) pin(pid, worker);
  const seen = [
    ...threadIds().map((tid) =>
      workers.threads.includes(tid) ? ["worker thread", tid, worker] : [tid === process.pid ? "main thread" : "other thread", tid, head],
    ),
    ...workers.processes.flatMap((pid) => threadIds(pid).map((tid) => [`worker process ${pid}`, tid, worker])),
  ].map(([what, tid, want]) => [what, tid, allowedCores(tid), want]);
  const wrong = seen.filter(([, , cores, want]) => cores !== want);
  if (wrong.length) throw new Error(`placement '${placement}' did not take: ${wrong.map(([w, t, c, want]) => `${w} ${t} on ${c}, not ${want}`).join("; ")}`);
  return seen.map(([what, tid, cores]) => [what, tid, cores]);
}
