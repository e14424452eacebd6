// What a long-lived driver holds, counted from outside its code: its processes (itself and every process under
// it), their open file descriptors and those of them on /dev/shm (unlinked files count: they hold memory), its active handles (Node's count), the job layer's task bookkeeping (an internal probe: the journey
// itself uses only the public API) and its heap after a full garbage collection.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { bookkeepingProbe } from "../../src/job/tasks/bookkeeping-probe.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

export interface ResourceCounts {
  processes: number;
  fds: number;
  shmFds: number;
  handles: number;
  taskTree: number;
  cancelledEarly: number;
  heapMiB: number;
}

export async function resourceCounts(): Promise<ResourceCounts> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve)); // finalizers run between collections
  }
  const { tree, cancelledEarly } = bookkeepingProbe();
  return {
    ...processCounts(),
    handles: process.getActiveResourcesInfo().filter((kind) => kind !== "Timeout").length,
    taskTree: tree,
    cancelledEarly,
    heapMiB: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
  };
}

/** This process and those under it (by /proc's parent links). */
function family(): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // it ended meanwhile
    }
  }
  const all = [process.pid];
  for (let i = 0; i < all.length; i++) all.push(...(parents.get(all[i]) ?? []));
  return all;
}

function processCounts(): { processes: number; fds: number; shmFds: number } {
  const pids = family();
  let fds = 0;
  let shmFds = 0;
  for (const pid of pids) {
    let entries: string[];
    try {
      entries = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // it ended meanwhile
    }
    fds += entries.length;
    for (const fd of entries) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("/dev/shm/")) shmFds++;
      } catch {
        // closed meanwhile
      }
    }
  }
  return { processes: pids.length, fds, shmFds };
}
