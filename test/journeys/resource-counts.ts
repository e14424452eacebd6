// What a long-lived driver holds, counted from outside its code: its processes (itself and every process under
// it), their open file descriptors and those of them on /dev/shm (unlinked files count: they hold memory), its
// active handles (Node's count), the job layer's task bookkeeping (an internal probe: the journey itself uses
// only the public API) and its heap after a full garbage collection.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { bookkeepingProbe } from "../../src/job/tasks/bookkeeping-probe.ts";
import { openFiles, processFamily } from "./chaos/process-tree.ts";

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

function processCounts(): { processes: number; fds: number; shmFds: number } {
  const pids = processFamily(process.pid);
  let fds = 0;
  let shmFds = 0;
  for (const pid of pids) {
    const files = openFiles(pid);
    fds += files.length;
    shmFds += files.filter((file) => file.startsWith("/dev/shm/")).length;
  }
  return { processes: pids.length, fds, shmFds };
}
