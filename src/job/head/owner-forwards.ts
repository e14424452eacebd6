// What the head sends the owners of nested tasks' refs (docs/design/object-store.md, "Who owns what"): a task's `run`
// makes a ref its worker's owner keeps (../worker/worker-owner.ts); the head schedules the task as any other and, when
// its result settles, sends the owner the outcome — the value, the HeldValue of a result its worker holds, or the
// error — and keeps no entry for it. Outcomes are sent in one message per owner per turn. A batch that carries an
// object (a value that may hold refs, a HeldValue, an error) is a call: the head keeps the values, and so the refs in
// them, until the owner has decoded them (its borrows travel ahead of its reply); and an owner that is gone cannot take
// them: a held one is freed at its holder then, as nobody can read it any more.
import { actorMeshAt } from "../../mesh/mesh-at.ts";
import type { ActorMesh } from "../../mesh/actor-mesh.ts";
import { HeldValue } from "../objects/held-value.ts";
import { WORKER_OWNER_CLASS, WORKER_OWNER_NAME, type OwnerAddress } from "../objects/object-ref.ts";

/** What an owner takes from the head: `flat` is `id, ok, outcome, retriesLeft, …` (ok 1: a value, 0: an error). */
interface SettledAt {
  remoteSettled(flat: unknown[]): void;
  remoteHolderDied(worker: number): void;
}

export class OwnerForwards {
  /** Outcomes not sent yet, per owner's mesh id. */
  readonly #batches = new Map<string, { owner: ActorMesh<SettledAt>; flat: unknown[]; objects: boolean }>();
  readonly #owners = new Map<string, ActorMesh<SettledAt>>();

  /** Ref `id`'s outcome goes to `owner` this turn; `retriesLeft`: its task's, for the owner's lineage. */
  send(owner: OwnerAddress, id: string, outcome: unknown, ok: boolean, retriesLeft: number): void {
    let batch = this.#batches.get(owner[1]);
    if (!batch) {
      this.#batches.set(owner[1], (batch = { owner: this.#owner(owner), flat: [], objects: false }));
      if (this.#batches.size === 1) queueMicrotask(() => this.#flush());
    }
    batch.flat.push(id, ok ? 1 : 0, outcome, retriesLeft === Infinity ? -1 : retriesLeft);
    if (typeof outcome === "object" && outcome !== null) batch.objects = true;
  }

  /**
   * Worker `worker` died: every owner this head sent outcomes to makes the values it held anew (those that may be), as
   * the head's lineage does for its own, rather than when a reader finds them gone. Sent after any outcome from before.
   */
  holderDied(worker: number): void {
    if (this.#batches.size !== 0) this.#flush();
    for (const owner of this.#owners.values()) {
      try {
        owner.remoteHolderDied.broadcast(worker);
      } catch {
        // that owner is gone too
      }
    }
  }

  #owner([addr, id]: OwnerAddress): ActorMesh<SettledAt> {
    let owner = this.#owners.get(id);
    if (!owner) this.#owners.set(id, (owner = actorMeshAt<SettledAt>(addr, id, WORKER_OWNER_NAME, null, WORKER_OWNER_CLASS)));
    return owner;
  }

  #flush(): void {
    const batches = [...this.#batches.values()];
    this.#batches.clear();
    for (const { owner, flat, objects } of batches) {
      try {
        if (!objects) owner.remoteSettled.broadcast(flat);
        else void owner.remoteSettled.callOne(flat).catch(() => freeHeld(flat)); // `flat` kept until the reply
      } catch {
        freeHeld(flat); // the owner's process is gone
      }
    }
  }
}

/** The held values among outcomes no owner can take: freed where they are held. */
function freeHeld(flat: unknown[]): void {
  for (let i = 2; i < flat.length; i += 4) {
    const outcome = flat[i];
    if (outcome instanceof HeldValue) outcome.free();
  }
}
