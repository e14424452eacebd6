// Replacing a failed rank of an actor mesh in place (`ActorMesh.respawn`).
// The owner keeps what it spawned the mesh with; a respawn starts a new
// process at the rank's place when the old one is gone (same host, or the
// worker `respawn(rank, { host })` names; same rank environment), constructs
// the actor there with the original arguments, and points the mesh — every
// slice of it — at the new process.
import type { Encoded } from "../../wire/codec.ts";
import { currentProc, hold, messageContext, release, type Proc } from "../../runtime/face/procs.ts";
import type { ProcHandle } from "../../runtime/face/hosts.ts";
import { sendSpawn, type RawExtent } from "../../runtime/face/actors.ts";
import { workerOf } from "../../runtime/face/network.ts";
import type { MeshRef } from "../mesh-state.ts";
import { ActorError, SupervisionError } from "../errors.ts";
import { workerOfHost } from "./respawn-options.ts";
import { countRestart } from "../../runtime/face/metrics.ts";
import { SUPERVISOR } from "../../runtime/face/supervision.ts";

/** One process of a ProcMesh: its address, and its handle where this process started it. */
export interface ProcSlot {
  readonly addr: string;
  readonly handle: ProcHandle | null;
  /**
   * Starts a replacement at the same place (same rank environment) on the
   * same host — or, for a proc of a worker, on the worker at address `to` —
   * and returns its slot; absent where there is nothing to restart (thisProc()).
   */
  readonly restart?: (to?: string) => ProcSlot;
}

/** What the spawner of a mesh keeps to construct one of its members again. */
export interface SpawnRecipe {
  readonly ownerActor: string | null;
  readonly ext: RawExtent;
  readonly maxConcurrency: number | undefined;
  /** What each member is told about itself (SpawnOptions.meta). */
  readonly meta?: unknown;
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
  /** Respawns under way, by member, and the worker each moves to: a second call for the same rank joins the first. */
  readonly #running = new Map<number, { readonly done: Promise<void>; readonly to: string | undefined }>();

  constructor(
    private readonly ref: MeshRef,
    private readonly recipe: SpawnRecipe,
  ) {}

  /** `host`: the `host` option, a HostMesh of one worker to start the rank's new process on. */
  respawn(member: number, host?: unknown): Promise<void> {
    const { ref, recipe } = this;
    const proc = currentProc();
    const what = `rank ${member} of mesh '${ref.name}'`;
    let to: string | undefined;
    try {
      to = host === undefined ? undefined : workerOfHost(host, what);
    } catch (err) {
      return Promise.reject(err as Error);
    }
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
    if (to !== undefined && workerOf(recipe.slots[recipe.slotOf[member]].addr) === null) {
      return Promise.reject(
        new TypeError(`cannot respawn ${what} on worker ${to}: the mesh runs on thisHost(), which is never lost; call respawn(rank) without host`),
      );
    }
    const lost = to === undefined ? undefined : proc.lostPeer(to);
    if (lost) {
      return Promise.reject(
        new SupervisionError(
          `cannot respawn ${what} on worker ${to}: that worker is gone (${lost.message}); pass a HostMesh of a live worker as host (this ` +
            `process does not dial an address it lost again: start a replacement worker on another port)`,
          { cause: lost },
        ),
      );
    }
    const running = this.#running.get(member);
    if (running && running.to !== to) {
      return Promise.reject(
        new Error(
          `cannot respawn ${what} ${to ? `on worker ${to}` : "without host"}: a respawn of it ${running.to ? `on worker ${running.to}` : "on its own host"} ` +
            `is under way; await that one`,
        ),
      );
    }
    if (running) return running.done;
    if (!proc.get(SUPERVISOR).hasFailed(ref.id, member)) {
      return Promise.reject(
        new Error(
          `${what} is running; respawn replaces failed ranks only (wait for its MeshFailure in supervise(), or a call rejecting with SupervisionError)`,
        ),
      );
    }
    hold(); // whoever awaits the respawn keeps the process alive
    countRestart(ref.className);
    const done = this.#replace(proc, member, what, to).finally(() => {
      this.#running.delete(member);
      release();
    });
    this.#running.set(member, { done, to });
    return done;
  }

  async #replace(proc: Proc, member: number, what: string, to: string | undefined): Promise<void> {
    const { ref, recipe } = this;
    const slot = await this.#liveSlot(proc, member, what, to);
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
      sendSpawn(
        proc,
        slot.addr,
        {
          actor: `${ref.id}.${member}`,
          name: ref.name,
          url,
          exportName,
          rank: member,
          extent: recipe.ext,
          owner: proc.addr,
          ownerActor: recipe.ownerActor,
          reply: { addr: proc.addr, id: port },
          ...(recipe.maxConcurrency === undefined ? {} : { maxConcurrency: recipe.maxConcurrency }),
          ...(recipe.origins ? { origin: recipe.origins[recipe.slotOf[member]] } : {}),
          ...(recipe.meta === undefined ? {} : { meta: recipe.meta }),
        },
        recipe.payload,
      );
    });
  }

  /**
   * The member's process, started again at its place if it is gone — on worker
   * `to` if given — once for all the ranks it held.
   */
  async #liveSlot(proc: Proc, member: number, what: string, to: string | undefined): Promise<ProcSlot> {
    const { slots, slotOf } = this.recipe;
    const index = slotOf[member];
    const old = slots[index];
    let slot = old;
    const at = workerOf(old.addr);
    if (proc.lostPeer(old.addr)) {
      if (!old.restart)
        throw new SupervisionError(`cannot respawn ${what}: its process ${old.addr} is gone and was not started by a HostMesh, so it cannot be restarted`);
      try {
        slot = old.restart(to);
      } catch (err) {
        throw new SupervisionError(`cannot respawn ${what}: ${(err as Error).message}`, { cause: err });
      }
      for (let i = 0; i < slots.length; i++) if (slots[i].addr === old.addr) slots[i] = slot;
    } else if (to !== undefined && to !== at) {
      // Moving a live process would leave the old one running beside the new.
      throw new Error(
        `cannot respawn ${what} on worker ${to}: its process ${old.addr} is alive on worker ${at}; respawn(rank) constructs the actor there again ` +
          `(host moves only a rank whose process is gone)`,
      );
    }
    try {
      await slot.handle?.ready;
    } catch (err) {
      // Put the dead process back, so that another respawn tries to start one again.
      for (let i = 0; i < slots.length; i++) if (slots[i] === slot && slot !== old) slots[i] = old;
      const worker = workerOf(slot.addr);
      const moveHint =
        worker && proc.lostPeer(worker) && to === undefined ? `; respawn(rank, { host }) moves the rank to another worker (a HostMesh of one live worker)` : "";
      throw new SupervisionError(`cannot respawn ${what}: its new process did not start: ${(err as Error).message}${moveHint}`, { cause: err });
    }
    return slot;
  }
}
