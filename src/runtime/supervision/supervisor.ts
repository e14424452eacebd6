// runtime/supervision: failures and where they go: the meshes a process owns and which
// of their members died (this file), MeshFailure and SupervisionError (supervision.ts), and the
// recent failures kept for the dashboard (failure-history.ts). Serves "fault" and "coll-addrs"
// messages; takes its Proc's messaging (proc/messaging.ts) and, from whoever assembles the
// runtime, how to reach an owner actor's mailbox and how to send a stop after earlier calls.
//
// A process's supervision state: the meshes it owns (and which actor owns
// each), what it knows to be dead, and where failures go. Failures arrive as
// "fault" messages from actors that died, or as lost peer processes.
import { hostname } from "node:os";
import { decode, encode, type Encoded } from "../../wire/codec.ts";
import { hostOf } from "../net/address.ts";
import { pidAt } from "../proc/proc-pids.ts";
import { causeChain, FailureHistory } from "./failure-history.ts";
import { hold, release } from "../base/keep-alive.ts";
import { countFailure } from "../base/counters.ts";
import { SupervisionError } from "../base/errors.ts";
import type { HeaderSender, PortRef, Stop } from "../base/messages.ts";
import type { ProcMessaging } from "../proc/messaging.ts";
import type { Router } from "../proc/routes.ts";
import { SubsystemKey } from "../proc/subsystems.ts";
import { meshFailure, unhandledFault, type MeshFailure } from "./supervision.ts";

/** What the supervisor needs besides its Proc's messaging. */
export interface SupervisorHost extends ProcMessaging, Router {
  /** Hands `failure` to the `supervise()` of local actor `ownerActor`, between its messages (if it still lives). */
  supervise(ownerActor: string, failure: MeshFailure): void;
  /** Sends a stop to `addr` after the calls this process sent there before it (calls/calls.ts). */
  sendStop(addr: string, stop: Stop): void;
}

export const SUPERVISOR = new SubsystemKey<Supervisor>("supervisor");

/** A mesh spawned by this process. */
export interface OwnedMesh {
  readonly id: string;
  readonly name: string;
  /** The actor (key) that spawned it, or null for the process itself (a client). */
  readonly ownerActor: string | null;
  /** Proc address of each member. */
  readonly addrs: readonly string[];
  /** The actor class, and the extent it was spawned with (for whoever looks: the dashboard). */
  readonly className?: string;
  readonly extent?: Readonly<Record<string, number>>;
}

/** Asks `owner`, the owner of mesh `mesh`, for its members' proc addresses: the array, or an Error, comes on `reply`. */
export function askMeshAddrs(proc: HeaderSender, owner: string, mesh: string, reply: PortRef): void {
  proc.send(owner, { kind: "coll-addrs", mesh, reply });
}

/** An owned mesh as `Supervisor.snapshot()` shows it. */
export interface MeshSnapshot {
  readonly id: string;
  readonly name: string;
  readonly className: string | null;
  readonly extent: Readonly<Record<string, number>>;
  readonly ownerActor: string | null;
  readonly members: readonly MemberSnapshot[];
}

export interface MemberSnapshot {
  readonly rank: number;
  readonly addr: string;
  /** The host of its process: this machine's name for a local process. */
  readonly host: string;
  /** Its OS process, when this process started it. */
  readonly pid?: number;
  readonly failed: boolean;
  /** Why it failed or stopped, outermost error first. */
  readonly causes?: readonly string[];
}

interface Owned extends OwnedMesh {
  readonly dead: Set<number>;
  stopping: boolean;
}

export class Supervisor {
  #owned = new Map<string, Owned>();
  #deadActors = new Map<string, Map<number, Error>>();
  /** The last failures of owned meshes, newest last. */
  readonly failures = new FailureHistory();

  constructor(private readonly host: SupervisorHost) {
    host.onPeerLost((addr, error, isFailure) => this.#procLost(addr, error, isFailure));
    host.route("fault", (header, frame) => {
      let cause: Error;
      try {
        cause = decode(frame.payload, frame.attachments) as Error;
      } catch (err) {
        cause = err as Error;
      }
      this.fault(header.mesh, header.member, cause);
    });
    host.route("coll-addrs", (header) => {
      const addrs = this.addrsOf(header.mesh);
      host.sendToPort(header.reply, 0, addrs ?? new Error(`${host.addr} does not own mesh ${header.mesh} (stopped?)`), !addrs);
    });
  }

  adopt(mesh: OwnedMesh): void {
    this.#owned.set(mesh.id, { ...mesh, dead: new Set(), stopping: false });
  }

  /** Proc address of each member of mesh `meshId`, if this process owns it. */
  addrsOf(meshId: string): readonly string[] | undefined {
    return this.#owned.get(meshId)?.addrs;
  }

  /** The procs hosting members of meshes owned here. */
  meshProcs(): string[] {
    return [...this.#owned.values()].flatMap((m) => m.addrs);
  }

  /** Whether member `member` of mesh `meshId`, owned here, failed (or its process was stopped). */
  hasFailed(meshId: string, member: number): boolean {
    return this.#owned.get(meshId)?.dead.has(member) ?? false;
  }

  /**
   * Member `member` of owned mesh `meshId` was replaced (its address in the
   * mesh's `addrs` already changed): messages reach it again, and its next
   * failure is reported anew.
   */
  revive(meshId: string, member: number): void {
    this.#owned.get(meshId)?.dead.delete(member);
    this.#deadActors.get(meshId)?.delete(member);
  }

  /** A replacement of member `member` failed to start: calls reject with `error`, and no owner is told (the respawn's caller is). */
  markFailed(meshId: string, member: number, error: Error): void {
    this.#owned.get(meshId)?.dead.add(member);
    this.actorGone(meshId, member, error);
  }

  /** Why a message to `${meshId}.${member}` on `addr` cannot be delivered, if it cannot. */
  unreachable(addr: string, meshId: string, member: number): Error | undefined {
    return this.host.lostPeer(addr) ?? this.#deadActors.get(meshId)?.get(member);
  }

  /** The dead members of a mesh, for callers that check many ranks. */
  deadMembers(meshId: string): ReadonlyMap<number, Error> | undefined {
    return this.#deadActors.get(meshId);
  }

  /** Remembers that an actor is gone, so later messages to it are answered at once. */
  actorGone(meshId: string, member: number, error: Error): void {
    let dead = this.#deadActors.get(meshId);
    if (!dead) this.#deadActors.set(meshId, (dead = new Map()));
    dead.set(member, error);
  }

  /** A member of a mesh this process owns failed: one MeshFailure to its owner. */
  fault(meshId: string, member: number, cause: Error): void {
    const owned = this.#owned.get(meshId);
    if (!owned || owned.stopping || owned.dead.has(member)) return;
    owned.dead.add(member);
    this.failures.record(meshId, owned.name, member, cause);
    countFailure(owned.className ?? "(unknown)");
    if (!this.#deadActors.get(meshId)?.has(member)) {
      this.actorGone(meshId, member, new SupervisionError(`actor ${meshId}.${member} of mesh '${owned.name}' failed: ${cause.message}`, { cause }));
    }
    const failure = meshFailure(owned.name, member, cause);
    if (owned.ownerActor === null) {
      unhandledFault(failure);
      return;
    }
    // The owner handles it between its messages; an owner that is gone took the mesh with it.
    this.host.supervise(owned.ownerActor, failure);
  }

  /** A peer process is gone. Members of owned meshes there fail, unless it was stopped on purpose. */
  #procLost(addr: string, cause: Error, isFailure: boolean): void {
    for (const owned of [...this.#owned.values()]) {
      owned.addrs.forEach((a, member) => {
        if (a !== addr) return;
        if (isFailure) this.fault(owned.id, member, cause);
        else owned.dead.add(member);
      });
    }
  }

  /** The meshes this process owns now, with their members' places and failures. */
  snapshot(): MeshSnapshot[] {
    return [...this.#owned.values()].map((m) => ({
      id: m.id,
      name: m.name,
      className: m.className ?? null,
      extent: m.extent ?? { ranks: m.addrs.length },
      ownerActor: m.ownerActor,
      members: m.addrs.map((addr, rank) => {
        const why = m.dead.has(rank) ? this.unreachable(addr, m.id, rank) : undefined;
        const pid = pidAt(addr);
        const member = { rank, addr, host: shownHost(addr), ...(pid === undefined ? {} : { pid }), failed: m.dead.has(rank) };
        return why ? { ...member, causes: causeChain(why) } : member;
      }),
    }));
  }

  /** Stops the members of mesh `meshId` living at `addrs` (all members when it is owned here). */
  async stopMesh(meshId: string, addrs: readonly string[] = this.#owned.get(meshId)?.addrs ?? []): Promise<void> {
    const owned = this.#owned.get(meshId);
    if (owned) owned.stopping = true;
    const byAddr = new Map<string, number[]>();
    addrs.forEach((addr, member) => {
      if (addr === undefined || this.unreachable(addr, meshId, member)) return;
      const members = byAddr.get(addr);
      if (members) members.push(member);
      else byAddr.set(addr, [member]);
    });
    const proc = this.host;
    hold(); // whoever awaits the stop keeps the process alive
    await new Promise<void>((resolve) => {
      let remaining = [...byAddr.values()].reduce((n, ms) => n + ms.length, 0);
      if (remaining === 0) return resolve();
      const open = new Set<string>(byAddr.keys());
      const done = (n: number) => {
        remaining -= n;
        if (remaining > 0) return;
        proc.closePort(port);
        unwatch();
        resolve();
      };
      const port = proc.openPort(() => done(1));
      // A process that goes away while stopping has stopped its actors too.
      const unwatch = proc.onPeerLost((addr) => {
        if (open.delete(addr)) done(byAddr.get(addr)!.length);
      });
      for (const [addr, members] of byAddr) proc.sendStop(addr, { kind: "stop", mesh: meshId, members, reply: { addr: proc.addr, id: port } });
    }).finally(release);
    this.#owned.delete(meshId);
    const stopped = new SupervisionError(`mesh ${owned ? `'${owned.name}'` : meshId} was stopped`);
    addrs.forEach((_, member) => {
      if (!this.#deadActors.get(meshId)?.has(member)) this.actorGone(meshId, member, stopped);
    });
  }

  /** Stops every mesh owned by actor `key` (meshes cannot outlive their owner). */
  async stopMeshesOwnedBy(key: string): Promise<void> {
    const mine = [...this.#owned.values()].filter((m) => m.ownerActor === key);
    await Promise.all(mine.map((m) => this.stopMesh(m.id)));
  }

  /** Reports the failure of local actor `key` to its mesh's owner at `owner`, here or in another process. */
  reportFault(key: string, owner: string, cause: Error): void {
    const [meshId, member] = splitKey(key);
    if (owner === this.host.addr) return this.fault(meshId, member, cause);
    let payload: Encoded;
    try {
      payload = encode(cause, "failure cause");
    } catch {
      payload = encode(new Error(cause.message));
    }
    this.host.send(owner, { kind: "fault", mesh: meshId, member }, payload);
  }
}

export function splitKey(key: string): [meshId: string, member: number] {
  const dot = key.lastIndexOf(".");
  return [key.slice(0, dot), Number(key.slice(dot + 1))];
}

/** The host of a proc address as people know it: this machine's name for a loopback one (as for a Unix socket). */
function shownHost(addr: string): string {
  const host = hostOf(addr);
  return host === "127.0.0.1" || host === "[::1]" || host === "localhost" ? hostname() : host;
}
