// Virtual workers: `fray worker`s that live, many to one OS process, as
// virtual procs (runtime/virtual-proc.ts). A client attaches to them with
// `attachToWorkers` and starts procs on them as on real workers — the same
// TCP connections, token, host agent, heartbeats and supervision — but each
// proc is a virtual proc in the worker's own OS process, not a new process.
// SimulatedJob (launchers/simulated-job.ts) runs them.
import { freePort } from "../runtime/address.ts";
import { config, settingName } from "../runtime/config.ts";
import { useToken } from "../runtime/credentials.ts";
import { Proc } from "../runtime/proc.ts";
import { serveHostAgent } from "../runtime/remote-agent.ts";
import { startVirtualProc } from "../runtime/virtual-proc.ts";
import "./actor-mesh.ts"; // registers mesh handles before any message is decoded (as bootstrap.ts does)

/** Tries for a free port this often: another process may take the one the OS just offered. */
const PORT_ATTEMPTS = 5;

/** Where virtual workers and their procs listen: this machine only (a simulator). */
const HOST = "127.0.0.1";

/**
 * Starts a virtual worker in this process on each of `ports` of 127.0.0.1
 * (one the OS picks for a port that is 0, or that someone took meanwhile),
 * and resolves with their addresses.
 */
export async function runVirtualWorkers(ports: readonly number[], options: { readonly token?: string } = {}): Promise<string[]> {
  if (ports.length === 0 || !ports.every((p) => Number.isInteger(p) && p >= 0 && p <= 65535)) throw new RangeError(`runVirtualWorkers needs TCP ports (0 for any), got [${ports.join(", ")}]`);
  const token = options.token ?? config.token;
  if (!token) throw new TypeError(`a worker needs a token (${settingName("token")}): an open worker runs code for anyone who connects`);
  useToken(token);
  return Promise.all(ports.map((port) => runVirtualWorker(port)));
}

async function runVirtualWorker(port: number): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const addr = `tcp://${HOST}:${port || (await freePort())}`;
    let proc: Proc;
    try {
      proc = await Proc.serveVirtual(addr, () => {});
    } catch (err) {
      port = 0;
      if (attempt < PORT_ATTEMPTS) continue;
      throw err;
    }
    serveHostAgent(proc, (procAddr, options) => startVirtualProc(proc, procAddr, HOST, options));
    return addr;
  }
}
