// The runtime of a process: a Proc (proc/) with every subsystem attached and
// wired to the others. This is the one file that knows them all; each takes
// from it only the narrow host it declares, so none reaches into another:
//   ports (in the Proc)  replies and channels
//   supervision/         owned meshes, failures        ("fault", "coll-addrs")
//   calls/               calls, casts, stops           ("msg", "cast", "cast-ack", "cast-lost", "stop")
//   actors/              the actors living here        ("spawn")
//   bulk/                RemoteBuffers, bulk links, shards, collective pieces ("buf.*", "coll")
//   metrics/, output/    metrics requests, workers' log lines ("metrics", "log")
//   hosts/               starting procs for clients    ("procs", once `fray worker` serves)
// Code above the runtime imports it only through face/ (by concern), where it gets
// a Proc (`currentProc()`, `serveProc()`, from here) and its subsystems by their
// keys: `proc.get(SUPERVISOR)`.
import { ActorTable, ACTORS } from "./actors/actor-table.ts";
import { config, settingName } from "./base/config.ts";
import { watchMailboxes } from "./base/counters.ts";
import type { Exit, StartProcs } from "./base/messages.ts";
import { BUFFERS, BufferStore, serveBuffers } from "./bulk/buffer-store.ts";
import { BULK_LINKS, BulkLinks, replyOn } from "./bulk/bulk-links.ts";
import { COLLECTIVES, CollectiveInbox } from "./bulk/collective-inbox.ts";
import { askAddrs, COLLECTIVE_QUITS, CollectiveQuits } from "./bulk/collective-quits.ts";
import { SHARDS, ShardStore } from "./bulk/shard-store.ts";
import { CALLS, Calls } from "./calls/calls.ts";
import { collectFrom, serveMetrics, type CollectedMetrics } from "./metrics/collect.ts";
import { startProcessReport } from "./metrics/process-report.ts";
import { snapshotOf, type RuntimeSnapshot } from "./metrics/runtime-snapshot.ts";
import { serveLogs } from "./output/worker-output.ts";
import { setWirePortSender } from "./ports/port.ts";
import { messageContext, messagesBegun } from "./proc/context.ts";
import { locate } from "./proc/proc-directory.ts";
import type { ProcMessaging } from "./proc/messaging.ts";
import { Proc } from "./proc/proc.ts";
import { clientTcpHost, farPeer } from "./net/reach.ts";
import { askMeshAddrs, splitKey, Supervisor, SUPERVISOR } from "./supervision/supervisor.ts";

const CURRENT = Symbol.for("fray.runtime.proc");
const g = globalThis as unknown as Record<symbol, Proc | undefined>;
/** Virtual procs alive in this OS process; while there are none, `currentProc()` never looks at the message context. */
let virtualProcs = 0;

/** Attaches every subsystem to a new `proc` and wires them together, before it receives a frame. */
function assemble(proc: Proc): Proc {
  const shards = proc.attach(SHARDS, new ShardStore());
  const buffers = proc.attach(BUFFERS, new BufferStore());
  serveBuffers(proc, buffers, replyOn);
  proc.attach(
    BULK_LINKS,
    new BulkLinks(
      proc.addr,
      (worker, at, deadline) => locate(proc, worker, at, deadline),
      (header, frame, peer) => proc.receive(header, frame, peer),
    ),
  );
  const collectives = proc.attach(COLLECTIVES, new CollectiveInbox(proc));
  const quits = proc.attach(
    COLLECTIVE_QUITS,
    new CollectiveQuits({
      addr: proc.addr,
      send: (addr, header, payload) => proc.send(addr, header, payload),
      route: (kind, handler) => proc.route(kind, handler),
      meshAddrs: (mesh, owner) => Promise.resolve(supervisor.addrsOf(mesh) ?? askAddrs(proc, owner, (reply) => askMeshAddrs(proc, owner, mesh, reply))),
      messagesBegun,
    }),
  );
  const messaging = messagingOf(proc);
  // The subsystems below call each other only through these late-bound closures.
  let actors!: ActorTable;
  let calls!: Calls;
  const supervisor = proc.attach(
    SUPERVISOR,
    new Supervisor({
      ...messaging,
      route: (kind, handler) => proc.route(kind, handler),
      supervise: (ownerActor, failure) => actors.get(ownerActor)?.supervise(failure),
      sendStop: (addr, stop) => calls.sendAfterCalls(addr, stop),
    }),
  );
  calls = proc.attach(
    CALLS,
    new Calls(proc, {
      target: (key) => actors.get(key),
      deadMember: (meshId, member) => supervisor.deadMembers(meshId)?.get(member),
    }),
  );
  actors = proc.attach(
    ACTORS,
    new ActorTable({
      proc,
      shards,
      sendToPort: messaging.sendToPort,
      gone: (cell, error) => supervisor.actorGone(...splitKey(cell.key), error),
      reportFault: (key, owner, cause) => supervisor.reportFault(key, owner, cause),
      stopMeshesOwnedBy: (key) => supervisor.stopMeshesOwnedBy(key),
      releaseOwnedBy: (key) => {
        buffers.releaseOwnedBy(key);
        shards.releaseOwnedBy(key);
        collectives.releaseOwnedBy(key);
        const [mesh] = splitKey(key);
        if (![...actors.values()].some((cell) => cell.key !== key && splitKey(cell.key)[0] === mesh)) quits.forget(mesh);
      },
      endpointThrew: (cell, context, error) => {
        const [mesh, member] = splitKey(cell.key);
        const size = context.extent[1].reduce((n, d) => n * d, 1);
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        quits.rankThrew({ mesh, version: context.version ?? 0, member: Number(member), call: context.call, error: message }, cell.owner, size);
      },
      route: (kind, handler) => proc.route(kind, handler),
      spawned: (cell) => calls.spawned(cell.key, cell),
    }),
  );
  serveMetrics(proc, { ...messaging, spawnedProcs: () => spawnedProcs(proc) });
  serveLogs(proc);
  // Until `fray worker` makes it a host agent (hosts/remote-agent.ts), a proc starts no procs.
  proc.route("procs", (request: StartProcs) =>
    request.addrs.forEach((_, i) => proc.sendToPort(request.reply, i, new Error(`${proc.addr} is not a worker that starts procs (run 'fray worker')`), true)),
  );
  // A worker told to exit stops its actors (running their cleanups) after the calls sent before the exit, then ends — within
  // FRAY_PROC_STOP_TIMEOUT_MS, its own bound: a call that never returns holds the stop of its actor for ever, and a worker's
  // agent, unlike a parent, cannot be asked to SIGKILL it.
  proc.route("exit", (header: Exit, _frame, peer) => {
    if (!proc.serving) return;
    calls.whenRan(peer, header.after ?? 0, () => {
      const bound = setTimeout(() => proc.exit(), config.procStopTimeoutMs);
      void actors.stopAll().then(() => (clearTimeout(bound), proc.exit()));
    });
  });
  return proc;
}

/** The live procs `proc` started, or hosts meshes on: whose metrics it collects. */
function spawnedProcs(proc: Proc): string[] {
  const addrs = new Set([...proc.children(), ...proc.get(SUPERVISOR).meshProcs()]);
  return [...addrs].filter((a) => a !== proc.addr && !proc.lostPeer(a));
}

/**
 * This process's Proc, created on first use. In a client it holds no event-loop
 * reference. A client listens where the peers it will talk to reach it
 * (net/reach.ts): its namespace service's (FRAY_NAMESPACE), and `peers`.
 */
export function currentProc(peers: readonly string[] = []): Proc {
  if (virtualProcs > 0) {
    const inActor = messageContext.getStore()?.actor.proc; // code run by an actor of a virtual proc
    if (inActor) return inActor;
  }
  if (g[CURRENT]) {
    if (peers.length > 0) checkReach(g[CURRENT], peers);
    return g[CURRENT];
  }
  const [proc, listening] = Proc.createClient(clientTcpHost(config.namespace ? [config.namespace, ...peers] : peers));
  listening.catch((err) => {
    throw err; // a client that cannot listen cannot work (the process ends)
  });
  g[CURRENT] = assemble(proc);
  startProcessReport(proc);
  return proc;
}

/** Refuses peers on another host when this process already listens where only its own host reaches it. */
function checkReach(proc: Proc, peers: readonly string[]): void {
  const far = proc.addr.startsWith("unix:") ? farPeer(peers) : null;
  if (!far) return;
  throw new Error(
    `this process already listens at ${proc.addr}, which only this host reaches, and ${far.peer} is on another host: the replies, ports and ` +
      `buffers it would hand there could not reach back. Attach to remote workers before anything else in this process uses fray, or set ` +
      `${settingName("advertiseHost")} to an address of this host that they reach`,
  );
}

/**
 * Starts this process's Proc at `addr` and resolves once it listens (a
 * worker process serves until told to exit); rejects naming the address
 * when it cannot be bound.
 */
export async function serveProc(addr: string): Promise<Proc> {
  if (g[CURRENT]) throw new Error("this process already has a Proc");
  const [proc, listening] = Proc.create(addr, true);
  assemble(proc);
  await listening;
  startProcessReport(proc);
  return (g[CURRENT] = proc);
}

/**
 * Starts one more Proc in this OS process at `addr` (a virtual proc, see
 * simulator/virtual-proc.ts): its own listener, connections, ports and actors.
 * Told to exit, or `end()`ed, it closes all of them and calls `ended`; the OS
 * process goes on.
 */
export async function serveVirtualProc(addr: string, ended: () => void): Promise<Proc> {
  const [proc, listening] = Proc.create(addr, true, {
    ended: () => {
      virtualProcs--;
      ended();
    },
  });
  assemble(proc);
  await listening;
  virtualProcs++;
  return proc;
}

/** Whether this process has its Proc yet (a dashboard that only reads a cluster should not make one). */
export function hasProc(): boolean {
  return g[CURRENT] !== undefined;
}

/** What this process's runtime holds now (its Proc is created if it has none yet): the dashboard's view. */
export function runtimeSnapshot(): RuntimeSnapshot {
  return snapshotOf(currentProc());
}

/** The metrics of this process and every proc it started (and those procs started), merged: `/metrics` and `/api/metrics`. */
export function collectMetrics(): Promise<CollectedMetrics> {
  const proc = currentProc();
  return collectFrom({ ...messagingOf(proc), spawnedProcs: () => spawnedProcs(proc) });
}

/** The Proc's messaging (proc/messaging.ts) alone, as a plain object to extend into a subsystem's host. */
function messagingOf(proc: Proc): ProcMessaging {
  return {
    addr: proc.addr,
    send: proc.send.bind(proc),
    sendToPort: proc.sendToPort.bind(proc),
    openPort: proc.openPort.bind(proc),
    closePort: proc.closePort.bind(proc),
    onPeerLost: proc.onPeerLost.bind(proc),
    lostPeer: proc.lostPeer.bind(proc),
  };
}

// Ports revived from the wire send through this process's Proc.
setWirePortSender(() => currentProc());
// The mailbox-depth gauge reads this process's actors when scraped.
watchMailboxes(function* () {
  for (const cell of g[CURRENT]?.get(ACTORS).values() ?? []) yield [cell.identity.className, cell.mailboxDepth];
});
