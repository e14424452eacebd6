// The OS processes a launcher starts on this machine (workers, simulated hosts):
// ended together by SIGKILL, and their ids.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { hold, release } from "../runtime/face/procs.ts";

/** Kills every child still running and waits for each to exit. */
export async function killChildren(children: readonly ChildProcess[]): Promise<void> {
  hold();
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGKILL");
      await exited;
    }),
  ).finally(release);
}

/** The process ids of `children` that have one. */
export function pidsOf(children: readonly ChildProcess[]): number[] {
  return children.flatMap((child) => (child.pid ? [child.pid] : []));
}
