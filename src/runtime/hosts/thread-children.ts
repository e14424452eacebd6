// The subprocesses a worker thread starts. They are children of the thread's whole process, so no process group
// holds them as a worker process's group holds its own (host-agent.ts): instead the thread notes the pid of each one
// it starts (node:child_process, seen on Node's "child_process" diagnostics channel) in memory its parent shares, and
// when the thread ends — terminated to replace it, stopped, or with its process — the parent kills the ones still
// running. Only those the thread started itself: what they start in turn is theirs, and one started `detached`
// (leading a group of its own) is left running, as it is by a worker process's end.
import { subscribe } from "node:diagnostics_channel";
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";

/** The key of the pid list in a thread's workerData. */
const KEY = "frayChildPids";
/** How many subprocesses of one thread at a time are noted; more run on unnoted (a thread rarely starts even one). */
const SLOTS = 256;

/** A new thread's list of pids (all 0: none), and what to add to its workerData for it. */
export function childPidList(): { pids: Int32Array; workerData: Record<string, unknown> } {
  const pids = new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));
  return { pids, workerData: { [KEY]: pids } };
}

/** In a worker thread fray started: notes each subprocess it starts in its list while the subprocess runs. */
export function noteThreadChildren(workerData: Readonly<Record<string, unknown>>): void {
  const pids = workerData[KEY];
  if (!(pids instanceof Int32Array)) return;
  subscribe("child_process", (message) => {
    const child = (message as { process: ChildProcess }).process;
    child.once("spawn", () => {
      const pid = child.pid!;
      for (let slot = 0; slot < pids.length; slot++) {
        if (Atomics.compareExchange(pids, slot, 0, pid) !== 0) continue;
        child.once("exit", () => Atomics.compareExchange(pids, slot, pid, 0));
        return;
      }
    });
  });
}

/** In the parent, once the thread has ended: kills the subprocesses it noted that still run (not the detached ones). */
export function endThreadChildren(pids: Int32Array): void {
  for (let slot = 0; slot < pids.length; slot++) {
    const pid = Atomics.exchange(pids, slot, 0);
    if (pid <= 0 || leadsGroup(pid)) continue;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // It exited meanwhile.
    }
  }
}

/** Whether `pid` leads a process group (it was started `detached`); false where /proc cannot tell. */
function leadsGroup(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) === pid; // after "pid (comm) ": state, ppid, pgrp
  } catch {
    return false;
  }
}
