// Which OS process serves a proc address this process started: for whoever
// shows processes to people (the dashboard shows pids, not socket paths).
// Filled by hosts/host-agent.ts as it starts worker processes; a thread's
// proc is this process.

const pids = new Map<string, number>();

/** `addr` is served by OS process `pid` (-1: a thread of this process). */
export function recordPid(addr: string, pid: number): void {
  pids.set(addr, pid < 0 ? process.pid : pid);
}

/** The pid serving `addr`, if this process started it. */
export function pidAt(addr: string): number | undefined {
  return pids.get(addr);
}
