// Replacing a failed rank of an actor mesh in place (`ActorMesh.respawn`).
// The owner keeps what it spawned the mesh with; a respawn starts a new
// process at the rank's place when the old one is gone (same host, same rank
// environment), constructs the actor there with the original arguments, and
// points the mesh — every slice of it — at the new process.
import type { Encoded } from "../wire/codec.ts";
import { messageContext } from "../runtime/proc/context.ts";
import type { ProcHandle } from "../runtime/hosts/host-agent.ts";
import { hold, release } from "../runtime/base/keep-alive.ts";
import type { RawExtent } from "../runtime/base/messages.ts";
import type { Proc } from "../runtime/proc/proc.ts";
import type { MeshRef } from "./actor-mesh.ts";
import { ActorError, SupervisionError } from "./errors.ts";
import { countRestart } from "../runtime/base/counters.ts";
import { currentProc } from "../runtime/runtime.ts";
import { SUPERVISOR } from "../runtime/supervision/supervisor.ts";

/** One process of a ProcMesh: its address, and its handle where this process started it. */
export interface ProcSlot {
  readonly addr: string;
  readonly handle: ProcHandle | null;
  /**
   * Starts a replacement at the same place (same host, same rank environment)
   * and returns its slot; absent where there is nothing to restart (thisProc()).
   */
  readonly restart?: () => ProcSlot;
}

/** What the spawner of a mesh keeps to construct one of its members again. */
export interface SpawnRecipe {
  readonly ownerActor: string | null;
  readonly ext: RawExtent;
  readonly maxConcurrency: number | undefined;
  /** The constructor arguments, encoded once at spawn. */
  readonly payload: Encoded;
  readonly located: Promise<{ readonly url: string; readonly exportName: string }>;
  /** The ProcMesh's slots, shared with its slices; a replaced process is replaced here for all of them. */
  readonly slots: ProcSlot[];
  /** The slot of each member of the actor mesh. */
  readonly slotOf: readonly number[];
  readonly procsStopped: () => boolean;
  /** Output tags by slot (log-origin.ts), when output is streamed. */
  readonly origins?: readonly string[];
}

export class RankRespawner {
  /** Respawns under way, by member: a second call for the same rank joins the first. */
  readonly #running = new Map<number, Promise<void>>();

  constructor(
    private readonly ref: MeshRef,
    private readonly recipe: SpawnRecipe,
  ) {}

  respawn(member: number): Promise<void> {
    const { ref, recipe } = this;
    const proc = currentProc();
    const what = `rank ${member} of mesh '${ref.name}'`;
    const caller = messageContext.getStore()?.actor.actorId ?? null;
    if (caller !== recipe.ownerActor) {
      const owner = recipe.ownerActor === null ? "the client process that spawned it" : `actor ${recipe.ownerActor}, which spawned it`;
      return Promise.reject(new Error(`cannot respawn ${what}: only its owner (${owner}) may replace its ranks; ask the owner to, e.g. from its supervise()`));
    }
    if (ref.stopped || !proc.get(SUPERVISOR).addrsOf(ref.id)) {
      return Promise.reject(new SupervisionError(`cannot respawn ${what}: the mesh was stopped; spawn a new mesh instead`));
    }
    if (recipe.procsStopped()) {
      return Promise.reject(new SupervisionError(`cannot respawn ${what}: its ProcMesh was stopped; spawn new procs and a new mesh instead`));
    }
    const running = this.#running.get(member);
    if (running) return running;
    if (!proc.get(SUPERVISOR).hasFailed(ref.id, member)) {
      return Promise.reject(
        new Error(
          `${what} is running; respawn replaces failed ranks only (wait for its MeshFailure in supervise(), or a call rejecting with SupervisionError)`,
        ),
      );
    }
    hold(); // whoever awaits the respawn keeps the process alive
    countRestart(ref.className);
    const done = this.#replace(proc, member, what).finally(() => {
      this.#running.delete(member);
      release();
    });
    this.#running.set(member, done);
    return done;
  }

  async #replace(proc: Proc, member: number, what: string): Promise<void> {
    const { ref, recipe } = this;
    const slot = await this.#liveSlot(proc, member, what);
    const { url, exportName } = await recipe.located;
    if (ref.stopped || !proc.get(SUPERVISOR).addrsOf(ref.id) || recipe.procsStopped()) {
      throw new SupervisionError(`cannot respawn ${what}: the mesh was stopped while its process started`);
    }
    // From here on calls go to the new actor, queued behind its construction (one link, in order).
    ref.addrs[member] = slot.addr;
    ref.version++;
    proc.get(SUPERVISOR).revive(ref.id, member);
    await new Promise<void>((resolve, reject) => {
      const finish = (error?: Error) => {
        proc.closePort(port);
        unwatch();
        if (error) reject(error);
        else resolve();
      };
      const port = proc.openPort((_rank, ok, value) => {
        if (ok) return finish();
        const error = new ActorError(`${ref.className} constructor`, ref.name, { rank: member, coords: ref.extent.coords(member), mesh: ref.name }, value);
        proc.get(SUPERVISOR).markFailed(ref.id, member, new SupervisionError(`${what} failed to start again: ${error.message}`, { cause: error }));
        finish(error);
      });
      // The supervisor reports this loss to the owner as a new MeshFailure; the respawn fails with it too.
      const unwatch = proc.onPeerLost((addr, error) => {
        if (addr === slot.addr) finish(new SupervisionError(`cannot respawn ${what}: its new process was lost: ${error.message}`, { cause: error }));
      });
      proc.send(
        slot.addr,
        {
          kind: "spawn",
          actor: `${ref.id}.${member}`,
          name: ref.name,
          url,
          exportName,
          rank: member,
          extent: recipe.ext,
          owner: proc.addr,
          ownerActor: recipe.ownerActor,
          reply: { addr: proc.addr, id: port },
          ...(recipe.maxConcurrency === undefined ? {} : { mc: recipe.maxConcurrency }),
          ...(recipe.origins ? { origin: recipe.origins[recipe.slotOf[member]] } : {}),
        },
        recipe.payload,
      );
    });
  }

  /** The member's process, started again at its place if it is gone (once for all the ranks it held). */
  async #liveSlot(proc: Proc, member: number, what: string): Promise<ProcSlot> {
    const { slots, slotOf } = this.recipe;
    const index = slotOf[member];
    const old = slots[index];
    let slot = old;
    if (proc.lostPeer(old.addr)) {
      if (!old.restart)
        throw new SupervisionError(`cannot respawn ${what}: its process ${old.addr} is gone and was not started by a HostMesh, so it cannot be restarted`);
      slot = old.restart();
      for (let i = 0; i < slots.length; i++) if (slots[i].addr === old.addr) slots[i] = slot;
    }
    try {
      await slot.handle?.ready;
    } catch (err) {
      // Put the dead process back, so that another respawn tries to start one again.
      for (let i = 0; i < slots.length; i++) if (slots[i] === slot && slot !== old) slots[i] = old;
      throw new SupervisionError(`cannot respawn ${what}: its new process did not start: ${(err as Error).message}`, { cause: err });
    }
    return slot;
  }
}
