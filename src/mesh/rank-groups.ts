// Where a call goes: the ranks of a mesh grouped by the process they live in
// (one frame per process carries a call to all its actors), and, before a
// send, the ranks known to be dead or stopped split off to answer at once.
import type { CallGroup } from "../runtime/face/actors.ts";
import type { Proc } from "../runtime/face/procs.ts";
import { SUPERVISOR } from "../runtime/face/supervision.ts";
import type { MeshTarget } from "./mesh-target.ts";

/** The ranks of a call that live in one process. */
export interface Group extends CallGroup {
  readonly members: number[];
  readonly ranks: number[];
}

/** An endpoint's groupings of its mesh's ranks, made once and again only when a member moved to another process. */
export class RankGroups {
  #all: Group[] | null = null;
  #single: Group[][] = [];
  #version = 0;

  constructor(private readonly mesh: MeshTarget) {}

  /** Forgets the groupings when a member moved to another process. */
  #checkVersion(): void {
    if (this.#version === this.mesh.version) return;
    this.#version = this.mesh.version;
    this.#all = null;
    this.#single = [];
  }

  /** Every rank, one group per process: one frame per process carries the call to all its actors. */
  all(): readonly Group[] {
    this.#checkVersion();
    if (!this.#all) {
      const { shape, addrs } = this.mesh;
      const byAddr = new Map<string, Group>();
      for (let rank = 0; rank < shape.extent.size; rank++) {
        const member = shape.members[rank];
        const addr = addrs[member];
        let g = byAddr.get(addr);
        if (!g) byAddr.set(addr, (g = { addr, members: [], ranks: [] }));
        g.members.push(member);
        g.ranks.push(rank);
      }
      this.#all = [...byAddr.values()];
    }
    return this.#all;
  }

  /** Rank `rank` alone. */
  one(rank: number): readonly Group[] {
    this.#checkVersion();
    const member = this.mesh.shape.members[rank];
    return (this.#single[rank] ??= [{ addr: this.mesh.addrs[member], members: [member], ranks: [rank] }]);
  }
}

/** Splits off the ranks of `groups` known to be dead or stopped, or returns null when there are none. */
export function splitUnreachable(proc: Proc, mesh: MeshTarget, groups: readonly Group[]): { groups: Group[]; errors: Array<[number, Error]> } | null {
  const supervisor = proc.get(SUPERVISOR);
  const stopped = mesh.stopped;
  const dead = supervisor.deadMembers(mesh.id);
  if (!stopped && !dead && !anyLost(proc, groups)) return null;
  const errors: Array<[number, Error]> = [];
  const live: Group[] = [];
  for (const g of groups) {
    const procGone = stopped ?? proc.lostPeer(g.addr);
    const kept: Group = { addr: g.addr, members: [], ranks: [], transient: true }; // for this call only: its header is not kept by the link
    g.members.forEach((member, i) => {
      const gone = procGone ?? dead?.get(member);
      if (gone) errors.push([g.ranks[i], gone]);
      else {
        kept.members.push(member);
        kept.ranks.push(g.ranks[i]);
      }
    });
    if (kept.members.length) live.push(kept);
  }
  return errors.length ? { groups: live, errors } : null;
}

/** Whether the process of any of `groups` is known to be lost. */
function anyLost(proc: Proc, groups: readonly Group[]): boolean {
  for (const g of groups) if (proc.lostPeer(g.addr)) return true;
  return false;
}
