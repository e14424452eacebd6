// Resource accounting per worker: what each worker of a job offers, what is
// free on it now, which actors hold some of it, how many tasks were sent ahead to it, and whether it is
// alive. Placement asks it for the worker to use; it never sends anything.
import { SupervisionError } from "../../mesh/errors.ts";
import { TASK_RESOURCES, type Resources } from "../base/options.ts";

export interface Worker {
  readonly index: number;
  readonly capacity: Resources;
  readonly free: Record<string, number>;
  /** Tasks sent ahead, waiting at the worker for one of its slots. */
  prefetched: number;
  /** Tasks placed on it that have not ended (or been given up on). */
  sent: number;
  /** How far ahead tasks may be sent to it now (PREFETCH, or QUICK_PREFETCH while its tasks are tiny). */
  prefetchLimit: number;
  /** When its last task finished (performance.now()), and the mean time between its tasks' ends (ms, a moving average). */
  lastDone: number;
  meanGap: number;
  alive: boolean;
  /** Dead while it is started again (worker-replacement.ts): tasks that need it wait. */
  restarting: boolean;
  /** The actors placed on it, each holding its resources until it ends or the worker dies. */
  readonly actors: Set<ActorPlacement>;
}

/** An actor's hold on its worker's resources: given back once, when the actor ends or its worker dies, whichever comes first. */
export interface ActorPlacement {
  readonly worker: Worker;
  readonly resources: Resources;
  /** The worker died, and the actor with it. */
  readonly lost: () => void;
}

/** Tasks with the default request may be sent this far ahead of a free slot, so a worker never idles between them. */
const PREFETCH = 16;
/**
 * While a worker finishes tasks faster than QUICK_TASK_MS each, this many may
 * wait there: tasks then go in batches big enough to amortise a message, and
 * a worker holds little work that another could have taken.
 */
const QUICK_PREFETCH = 64;
const QUICK_TASK_MS = 0.2;

export class WorkerPool {
  #workers: Worker[] = [];
  /** Settles when a worker is next revived or dead for good (changed), for whoever waits for one to come back. */
  #changed: { promise: Promise<void>; settle: () => void } | null = null;

  /** `count` workers offering `capacity` each, all free. */
  reset(count: number, capacity: Resources): void {
    this.#workers = Array.from({ length: count }, (_, index) => ({
      index,
      capacity,
      free: { ...capacity },
      prefetched: 0,
      sent: 0,
      prefetchLimit: PREFETCH,
      lastDone: 0,
      meanGap: Infinity,
      alive: true,
      restarting: false,
      actors: new Set(),
    }));
  }

  /**
   * Worker `index` died: nothing is placed on it any more (until it is revived, if `restarting`), and its actors
   * died with it (their resources come back, once, when it is revived).
   */
  markDead(index: number, restarting = false): void {
    const worker = this.#workers[index];
    if (!worker) return;
    worker.alive = false;
    worker.restarting = restarting;
    this.#change();
    const lost = [...worker.actors];
    worker.actors.clear();
    for (const actor of lost) actor.lost();
  }

  alive(index: number): boolean {
    return this.#workers[index]?.alive ?? false;
  }

  /** Worker `index` was started again: alive, all free (no actor outlives its worker), nothing sent ahead. */
  revive(index: number): void {
    const worker = this.#workers[index];
    if (!worker) return;
    worker.alive = true;
    worker.restarting = false;
    this.#change();
    worker.prefetched = 0;
    for (const r of Object.keys(worker.free)) delete worker.free[r];
    Object.assign(worker.free, worker.capacity);
  }

  #change(): void {
    this.#changed?.settle();
    this.#changed = null;
  }

  /** Resolves once a worker that is starting again fits `request` and comes back, or none does any more. */
  async restarted(request: Resources): Promise<void> {
    while (this.#workers.some((w) => w.restarting && fits(w.capacity, request))) {
      if (!this.#changed) {
        let settle!: () => void;
        const promise = new Promise<void>((resolve) => (settle = resolve));
        this.#changed = { promise, settle };
      }
      await this.#changed.promise;
      if (this.pick(request)) return;
    }
  }

  /**
   * The alive worker with room for `request` and the most free cpu (with no task waiting there, if `idleOnly`); of
   * those alike, the one with the fewest actors, so actors that ask for nothing (a group's members) spread out.
   */
  pick(request: Resources, idleOnly = false): Worker | undefined {
    let best: Worker | undefined;
    for (const w of this.#workers) {
      if (!w.alive || !fits(w.free, request) || (idleOnly && w.prefetched > 0)) continue;
      const cpu = w.free.cpu ?? 0;
      const bestCpu = best?.free.cpu ?? 0;
      if (!best || cpu > bestCpu || (cpu === bestCpu && w.actors.size < best.actors.size)) best = w;
    }
    return best;
  }

  /** Worker `index` if it is alive and has room for `request` (with no task waiting there, if `idleOnly`). */
  pickOn(index: number, request: Resources, idleOnly = false): Worker | undefined {
    const w = this.#workers[index];
    return w && w.alive && fits(w.free, request) && !(idleOnly && w.prefetched > 0) ? w : undefined;
  }

  /** The alive worker able to run default tasks with the fewest sent ahead, if any has room for one more. */
  pickAhead(): Worker | undefined {
    let best: Worker | undefined;
    for (const w of this.#workers) {
      if (!w.alive || w.prefetched >= w.prefetchLimit || !fits(w.capacity, TASK_RESOURCES)) continue;
      if (!best || w.prefetched < best.prefetched) best = w;
    }
    return best;
  }

  /** A task of `worker` finished: while its tasks end in quick succession, more may be sent ahead. */
  finished(worker: Worker): void {
    const now = performance.now();
    const gap = now - worker.lastDone;
    worker.meanGap = worker.meanGap === Infinity ? gap : 0.9 * worker.meanGap + 0.1 * gap;
    worker.lastDone = now;
    worker.prefetchLimit = worker.meanGap < QUICK_TASK_MS ? QUICK_PREFETCH : PREFETCH;
  }

  /** An error naming the resource when no alive worker could ever satisfy `request`. */
  impossible(request: Resources, kind: "task" | "actor", name: string): Error | null {
    if (request === TASK_RESOURCES) for (const w of this.#workers) if (w.alive && fits(w.capacity, request)) return null; // the common case, without allocating
    const what = `${kind} ${name}`;
    const alive = this.#workers.filter((w) => w.alive || w.restarting);
    if (alive.some((w) => fits(w.capacity, request))) return null;
    if (alive.length === 0) return new SupervisionError(`${what} cannot run: every worker of this job has died`);
    const short = Object.keys(request).find((r) => !alive.some((w) => (w.capacity[r] ?? 0) >= request[r])) ?? Object.keys(request)[0];
    const most = Math.max(...alive.map((w) => w.capacity[short] ?? 0));
    return new RangeError(
      `${what} requests ${short}: ${request[short]}, but no worker has that much (the most any worker offers is ${short}: ${most}); lower the ` +
        `request or give workers more (resources option of createJobContext)`,
    );
  }
}

function fits(free: Resources, request: Resources): boolean {
  for (const r in request) if ((free[r] ?? 0) < request[r]) return false;
  return true;
}

/** Marks `request` as in use on `worker`. */
export function take(worker: Worker, request: Resources): void {
  for (const r in request) worker.free[r] = (worker.free[r] ?? 0) - request[r];
}

/** Places an actor holding `resources` on `worker`; `lost` is called if the worker dies first. */
export function placeActor(worker: Worker, resources: Resources, lost: () => void): ActorPlacement {
  const placement = { worker, resources, lost };
  take(worker, resources);
  worker.actors.add(placement);
  return placement;
}

/** The actor of `placement` ended: its resources go back, unless its worker's death took them already. */
export function releaseActor(placement: ActorPlacement): void {
  if (placement.worker.actors.delete(placement)) give(placement.worker, placement.resources);
}

/** Gives `request` back to `worker`. */
export function give(worker: Worker, request: Resources): void {
  for (const r in request) worker.free[r] = (worker.free[r] ?? 0) + request[r];
}
