// runtime/simulator: simulated hosts: many procs in one OS process (this file), on ports
// below the ephemeral range (net/tcp-ports.ts). Uses hosts/ for the agent, output/ for tags.
//
// Virtual procs: more than one Proc in one OS process, each with its own TCP
// listener, connections, ports, supervisor and actors — the hosts of a
// simulated mesh (SimulatedJob), packed into few processes. A virtual worker
// (a host agent) starts them as `fray worker` starts processes: each reports
// its port to the agent over a connection to it (in-process here), and peers
// reach it over TCP with the token like any proc. Told to exit, it stops its
// actors and closes its listener and every connection — to its peers, a
// process's death — and the OS process goes on.
import { inProcessPair } from "../../wire/in-process-transport.ts";
import { config } from "../base/config.ts";
import type { ProcPlace } from "../base/device-env.ts";
import { ConnectionError } from "../base/errors.ts";
import type { ProcExit, ProcHandle } from "../hosts/host-agent.ts";
import { captureOutput } from "../output/output-capture.ts";
import { emitLines } from "../output/output-sink.ts";
import { CALLS } from "../calls/calls.ts";
import type { Proc } from "../proc/proc.ts";
import { listenOnFirstFree, randomSimulatorPort } from "../net/tcp-ports.ts";
import type { WorkerLog } from "../output/worker-output.ts";

/** Ports a virtual proc tries before it gives up: each is free unless something else listens there. */
const PORT_TRIES = 32;

/** Starts one more Proc, with its subsystems, in this OS process (runtime.ts's `serveVirtualProc`). */
export type ServeVirtual = (addr: string, ended: () => void) => Promise<Proc>;

/**
 * Starts a virtual proc named `addr` (`${agent.addr}/NAME`) on a free port of
 * `bindHost` (net/tcp-ports.ts), as the agent's child: its port goes to the
 * agent's proc directory, and its end is reported like a child's exit.
 */
export function startVirtualProc(
  agent: Proc,
  serve: ServeVirtual,
  addr: string,
  bindHost: string,
  options: { readonly place?: ProcPlace | null; readonly log?: WorkerLog } = {},
): ProcHandle {
  if (options.place?.gpu != null)
    throw new TypeError(
      `a simulated host has no GPUs: cannot start ${addr} on GPU ${options.place.gpu}; leave the gpus label out of spawnProcs on simulated hosts`,
    );
  if (options.log) routeOutput(options.log);
  const label = `virtual proc ${addr}`;
  let proc: Proc | null = null;
  let stopping = false;
  let killed = false;
  let ended!: (exit: ProcExit) => void;
  const exited = new Promise<ProcExit>((resolve) => (ended = resolve));
  const connected = agent.expectPeer(addr);
  agent.adoptChild(addr);
  const onEnd = () => ended(killed ? { code: null, signal: "SIGKILL" } : { code: 0, signal: null });
  let tries = 0;
  const ports = () => (tries++ < PORT_TRIES ? randomSimulatorPort() : undefined);
  const ready = listenOnFirstFree(ports, (port) => serve(`${addr}@tcp://${bindHost}:${port}`, onEnd)).then((started) => {
    proc = started;
    // Its hello on this connection tells the agent its port, as a process's would.
    const [mine, theirs] = inProcessPair();
    agent.acceptTransport(theirs);
    started.connectVia(agent.addr, mine);
    if (killed) started.end(); // killed while it was starting
    return connected;
  });
  ready.catch((err: Error) => {
    agent.childExited(addr, new ConnectionError(`${label} could not start: ${err.message}`, { cause: err }), true);
    ended({ code: 1, signal: null });
  });
  exited.then((exit) => {
    if (!proc) return; // it never started: reported above
    if (stopping) agent.childExited(addr, new ConnectionError(`${label} was stopped`), false);
    else agent.childExited(addr, new ConnectionError(`${label} ${exit.signal ? "was killed" : "exited"}`), true);
  });
  const kill = () => {
    killed = true;
    proc?.end();
  };
  return {
    addr,
    pid: process.pid,
    label,
    ready,
    exited,
    kill,
    stop: async () => {
      if (
        !(await ready.then(
          () => true,
          () => false,
        ))
      )
        return exited;
      stopping = true;
      const timer = setTimeout(kill, config.procStopTimeoutMs);
      try {
        agent.get(CALLS).sendAfterCalls(addr, { kind: "exit" });
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Where this process's output goes: captured once, process-wide, and sent to
 * the sink of the latest client that asked for streamed output, each line
 * tagged with the actor that wrote it (its origin) — all of this process's
 * virtual procs share one stdout.
 */
let outputSink: Required<WorkerLog> | null = null;

function routeOutput(log: WorkerLog): void {
  const first = outputSink === null;
  outputSink = { tag: log.tag, sink: log.sink ?? emitLines };
  if (first)
    captureOutput((s, lines) =>
      outputSink!.sink(
        s,
        lines.map(([tag, text]) => [tag ?? outputSink!.tag, text] as const),
      ),
    );
}
