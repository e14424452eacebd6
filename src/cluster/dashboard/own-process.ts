// The dashboard's own process, shown as a cluster job's processes are: its
// tasks (the job layer counts them always, see job/tasks/task-history.ts), and
// its CPU and memory and those of the worker processes it started on this host
// (read from /proc on Linux; elsewhere its own only).
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { TASK_HISTORY } from "../../job/tasks/task-history.ts";
import type { RuntimeSnapshot } from "../../runtime/face/metrics.ts";
import type { JobTasks } from "./job-reports.ts";
import type { SampleInput } from "./series.ts";

/** Failed tasks shown of this process. */
const FAILED_TASKS = 50;
/** Clock ticks per second in /proc/PID/stat: USER_HZ, 100 on Linux's user-space ABI. */
const USER_HZ = 100;

/** This process's tasks; a failed one's worker pid from its executors mesh in `snapshot`. */
export function ownTasks(snapshot: RuntimeSnapshot | null): JobTasks {
  const r = TASK_HISTORY.report();
  const executors = snapshot?.meshes.find((m) => m.name === "fray-executors");
  const where = { replica: null, pid: process.pid, host: hostname() };
  return {
    submitted: r.submitted,
    done: r.done,
    failed: r.failed,
    retried: r.retried,
    inFlight: Math.max(0, r.submitted - r.done - r.failed),
    failedTasks: r.failedTasks
      .slice(-FAILED_TASKS)
      .reverse()
      .map((f) => {
        const workerPid = f.worker === null ? undefined : executors?.members[f.worker]?.pid;
        return { ...f, where, ...(workerPid === undefined ? {} : { workerPid }) };
      }),
  };
}

type ProcessSample = SampleInput["processes"][number];

/** This process, and each process it started for its meshes on this host (Linux), for the CPU and memory charts. */
export function ownProcesses(snapshot: RuntimeSnapshot | null): ProcessSample[] {
  const cpu = process.cpuUsage();
  const host = hostname();
  const own = {
    key: `${host}/${process.pid}`,
    label: `dashboard · pid ${process.pid}`,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    rssBytes: process.memoryUsage.rss(),
  };
  const workers = new Map<number, string>();
  for (const mesh of snapshot?.meshes ?? []) {
    for (const m of mesh.members) if (m.pid !== undefined && m.pid !== process.pid && m.host === host && !m.failed) workers.set(m.pid, mesh.name);
  }
  return [own, ...[...workers].flatMap(([pid, mesh]) => procStat(pid, host, `${mesh} · pid ${pid}`))];
}

/** CPU time and RSS of `pid` from /proc; none where there is no /proc or the process is gone. */
function procStat(pid: number, host: string, label: string): ProcessSample[] {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // after "pid (comm) ": state is field 3
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime: fields 14 and 15
    const rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
    if (!Number.isFinite(ticks) || !Number.isFinite(rssKb)) return [];
    return [{ key: `${host}/${pid}`, label, cpuSeconds: ticks / USER_HZ, rssBytes: rssKb * 1024 }];
  } catch {
    return [];
  }
}
