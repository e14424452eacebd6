// Virtual workers: `fray worker`s that live, many to one OS process, as
// virtual procs (runtime/simulator/virtual-proc.ts). A client attaches to them with
// `attachToWorkers` and starts procs on them as on real workers — the same
// TCP connections, token, host agent, heartbeats and supervision — but each
// proc is a virtual proc in the worker's own OS process, not a new process.
// SimulatedJob (launchers/simulated-job.ts) runs them.
import { config, settingName } from "./settings.ts";
import { listenOnFirstFree, useToken } from "../runtime/face/network.ts";
import { serveHostAgent, type ProcHandle } from "../runtime/face/hosts.ts";
import { startVirtualProc } from "../runtime/face/simulator.ts";
import "./actor-mesh.ts"; // registers mesh handles before any message is decoded (as a worker's entry does)

/** Where virtual workers and their procs listen: this machine only (a simulator). */
const HOST = "127.0.0.1";
import { serveVirtualProc } from "../runtime/face/procs.ts";

/**
 * Starts `count` virtual workers in this process on ports of 127.0.0.1 taken
 * from `ports` in turn (one that is in use is skipped), and resolves with
 * their addresses; rejects when `ports` runs out first.
 */
export async function runVirtualWorkers(count: number, ports: readonly number[], options: { readonly token?: string } = {}): Promise<string[]> {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`runVirtualWorkers needs a positive integer count of workers, got ${count}`);
  if (ports.length < count || !ports.every((p) => Number.isInteger(p) && p > 0 && p <= 65535))
    throw new RangeError(`runVirtualWorkers needs at least ${count} TCP ports to try, got [${ports.join(", ")}]`);
  const token = options.token ?? config.token;
  if (!token) throw new TypeError(`a worker needs a token (${settingName("token")}): an open worker runs code for anyone who connects`);
  useToken(token);
  let next = 0;
  const candidates = () => ports[next++];
  return Promise.all(Array.from({ length: count }, () => runVirtualWorker(candidates)));
}

async function runVirtualWorker(ports: () => number | undefined): Promise<string> {
  // A worker's procs end with it, as a real worker's processes do with their parent.
  const procs = new Set<ProcHandle>();
  const [addr, proc] = await listenOnFirstFree(ports, async (port) => {
    const at = `tcp://${HOST}:${port}`;
    return [at, await serveVirtualProc(at, () => procs.forEach((h) => h.kill()))] as const;
  });
  serveHostAgent(proc, (procAddr, options) => {
    const handle = startVirtualProc(proc, serveVirtualProc, procAddr, HOST, options);
    procs.add(handle);
    void handle.exited.then(() => procs.delete(handle));
    return handle;
  });
  return addr;
}
