// Host agents across the network. On a worker (`fray worker`), the agent starts
// procs for the one attached client and stops them when that client goes away.
// On the client, a RemoteProcHandle stands for a proc a worker started.
import { workerOf } from "../net/address.ts";
import { heartbeat } from "../proc/heartbeat.ts";
import type { ProcExit, ProcHandle } from "./host-agent.ts";
import { config, settingNow } from "../base/config.ts";
import type { ProcPlace } from "../base/device-env.ts";
import type { WorkerLog } from "../output/worker-output.ts";
import { ConnectionError, UnreachableError } from "../base/errors.ts";
import { hold, release } from "../base/keep-alive.ts";
import type { StartProcs } from "../base/messages.ts";
import { CALLS } from "../calls/calls.ts";
import type { Proc } from "../proc/proc.ts";
import { runsTypeScript } from "./typescript-loader.ts";

/**
 * Starts the proc named `addr` for a client: a Node process running the
 * bootstrap entry (`fray worker`), or a virtual proc in this process
 * (virtual-proc.ts). It reports the port it listens on to the agent, like any
 * proc its agent started. Throws when it cannot start here (no GPU for its rank).
 */
export type ProcStarter = (addr: string, options: { readonly place?: ProcPlace | null; readonly log?: WorkerLog; readonly typescript?: boolean }) => ProcHandle;

/** Makes this (serving) proc a host agent that starts procs with `start`. */
export function serveHostAgent(proc: Proc, start: ProcStarter): void {
  const byClient = new Map<string, ProcHandle[]>();
  proc.route("procs", (request: StartProcs) => {
    const mine = byClient.get(request.client) ?? [];
    byClient.set(request.client, mine);
    request.addrs.forEach((addr, i) => {
      if (workerOf(addr) !== proc.addr) {
        proc.sendToPort(
          request.reply,
          i,
          new TypeError(`cannot start a proc named ${addr} on worker ${proc.addr}: procs here are named ${proc.addr}/NAME`),
          true,
        );
        return;
      }
      let handle: ProcHandle;
      try {
        // Streamed output goes to the client over its connection to us, tagged here.
        const log = request.logs && {
          tag: request.logs[i] ?? "",
          sink: (s: 1 | 2, lines: readonly (readonly [string, string])[]) => proc.send(request.client, { kind: "log", stream: s, lines }),
        };
        handle = start(addr, { place: request.places?.[i], log, typescript: request.typescript });
      } catch (err) {
        proc.sendToPort(request.reply, i, err, true); // e.g. no GPU here for its rank
        return;
      }
      mine.push(handle);
      handle.ready.then(
        () => proc.sendToPort(request.reply, i, null, false),
        (err: Error) => proc.sendToPort(request.reply, i, err, true),
      );
    });
  });
  // A client that goes away takes its procs with it; the worker waits for the next.
  proc.onPeerLost((addr) => {
    const procs = byClient.get(addr);
    if (!procs) return;
    byClient.delete(addr);
    for (const h of procs) void h.stop();
  });
}

/**
 * Asks the worker at `agent` to start procs named `addrs` (`${agent}/NAME`),
 * placed at `places`, streaming their output here tagged `logs` (if given);
 * returns their handles at once.
 */
export function startRemoteProcs(proc: Proc, agent: string, addrs: readonly string[], places?: readonly ProcPlace[], logs?: readonly string[]): ProcHandle[] {
  const waiting = addrs.map(() => {
    let settle!: (err?: Error) => void;
    const ready = new Promise<void>((resolve, reject) => (settle = (err) => (err ? reject(err) : resolve())));
    ready.catch(() => {});
    return { ready, settle };
  });
  let remaining = addrs.length;
  hold();
  const done = () => {
    if (--remaining > 0) return;
    proc.closePort(port);
    unwatch();
    release();
  };
  const port = proc.openPort((rank, ok, value) => {
    waiting[rank].settle(
      ok ? undefined : new ConnectionError(`worker ${agent} could not start a proc at ${addrs[rank]}: ${(value as Error).message}`, { cause: value }),
    );
    done();
  });
  const unwatch = proc.onPeerLost((addr, error) => {
    if (addr !== agent) return;
    for (let i = 0; i < addrs.length; i++) waiting[i].settle(new ConnectionError(`worker ${agent} is unreachable: ${error.message}`, { cause: error }));
    remaining = 1;
    done();
  });
  const lost = proc.lostPeer(agent); // a worker this process lost is never dialed again: say so, not wait forever
  if (lost) {
    for (const w of waiting) w.settle(new ConnectionError(`worker ${agent} was lost (${lost.message}); start a worker at another address`, { cause: lost }));
    remaining = 1;
    done();
    return addrs.map((addr, i) => remoteHandle(proc, addr, waiting[i].ready));
  }
  const typescript = runsTypeScript() ? { typescript: true } : {};
  proc.send(agent, { kind: "procs", addrs, places, client: proc.addr, reply: { addr: proc.addr, id: port }, ...(logs ? { logs } : {}), ...typescript });
  watchHost(proc, agent, addrs);
  return addrs.map((addr, i) => remoteHandle(proc, addr, waiting[i].ready));
}

/** By proc (an OS process may hold several virtual ones, each watching for itself), the hosts it watches and their procs. */
const watching = new WeakMap<Proc, Map<string, Set<string>>>();

/**
 * Pings the worker of a host every FRAY_HEARTBEAT_INTERVAL_MS; when it is
 * silent for FRAY_HOST_TIMEOUT_MS the host is gone — cut off or down — and
 * so is every proc there.
 */
function watchHost(proc: Proc, agent: string, addrs: readonly string[]): void {
  let watchedHosts = watching.get(proc);
  if (!watchedHosts) watching.set(proc, (watchedHosts = new Map()));
  let procs = watchedHosts.get(agent);
  if (procs) {
    for (const a of addrs) procs.add(a);
    return;
  }
  watchedHosts.set(agent, (procs = new Set(addrs)));
  const stopBeating = heartbeat(
    proc,
    agent,
    Promise.resolve(),
    (silentMs) => {
      watchedHosts!.delete(agent);
      const cause = new UnreachableError(`host of worker ${agent} is unreachable: no answer for ${silentMs} ms (${settingNow("hostTimeoutMs")})`);
      for (const a of procs!) proc.peerLost(a, cause);
      proc.peerLost(agent, cause);
    },
    () => config.hostTimeoutMs,
  );
  const unwatch = proc.onPeerLost((addr) => {
    if (addr !== agent) return;
    unwatch();
    stopBeating(); // else its silence, later, would fail a worker that took the address since
    watchedHosts!.delete(agent);
  });
}

function remoteHandle(proc: Proc, addr: string, ready: Promise<void>): ProcHandle {
  // A host cut off the network keeps its connections open: only silence shows it.
  const stopHeartbeat = heartbeat(proc, addr, ready, (silentMs) => {
    proc.peerLost(addr, new ConnectionError(`${addr} is unreachable: no heartbeat for ${silentMs} ms (${settingNow("heartbeatTimeoutMs")})`));
  });
  const exited = new Promise<ProcExit>((resolve) => {
    const unwatch = proc.onPeerLost((lost) => {
      if (lost !== addr) return;
      unwatch();
      stopHeartbeat();
      resolve({ code: null, signal: null });
    });
  });
  let stopping = false;
  return {
    addr,
    pid: -1,
    label: `proc at ${addr}`,
    ready,
    exited,
    kill: () => proc.get(CALLS).sendAfterCalls(addr, { kind: "exit" }),
    stop: async () => {
      // A proc that never started (say its host had no GPU for it) has nothing to stop.
      if (
        !(await ready.then(
          () => true,
          () => false,
        ))
      )
        return { code: null, signal: null };
      if (!stopping) {
        stopping = true;
        proc.expectExit(addr);
        proc.get(CALLS).sendAfterCalls(addr, { kind: "exit" });
      }
      hold();
      const timer = setTimeout(
        () => proc.peerLost(addr, new ConnectionError(`${addr} did not exit within ${config.procStopTimeoutMs} ms`), false),
        config.procStopTimeoutMs,
      );
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
        release();
      }
    },
  };
}
