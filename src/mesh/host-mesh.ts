// HostMesh: a mesh of hosts that can start processes. `thisHost()` is this
// machine (no labels, size 1); `thisProc()` is this very process.
import { fileURLToPath } from "node:url";
import { deviceEnv, startProc, startRemoteProcs, type ProcPlace, type WorkerEntry } from "../runtime/face/hosts.ts";
import { currentProc, logStreaming, originTag } from "../runtime/face/procs.ts";
import { SupervisionError } from "./errors.ts";
import { Extent } from "./shape/extent.ts";
import { ProcMesh } from "./proc-mesh.ts";
import type { ProcSlot } from "./respawn/rank-respawner.ts";
import { kWorkers, type RespawnHost } from "./respawn/respawn-options.ts";
import { Shape } from "./shape/shape.ts";

// Workers run the entries in worker/: compiled JS, or TypeScript under tsx (which has no CommonJS one).
const compiled = !import.meta.url.endsWith(".ts");
export const WORKER_ENTRY: WorkerEntry = {
  module: fileURLToPath(new URL(`./worker/bootstrap${compiled ? ".js" : ".ts"}`, import.meta.url)),
  commonjs: compiled ? fileURLToPath(new URL("./worker/process-entry.cjs", import.meta.url)) : null,
};

export class HostMesh implements RespawnHost {
  /** @internal `agents`: the workers' addresses, one per host; null for this machine. */
  constructor(
    readonly extent: Extent,
    private readonly agents: readonly string[] | null = null,
  ) {}

  get size(): number {
    return this.extent.size;
  }

  /** @internal The workers' addresses, one per host; null for this machine (a respawn's `host`). */
  get [kWorkers](): readonly string[] | null {
    return this.agents;
  }

  /**
   * Starts `perHost` processes on every host, e.g. `{gpus: 4}`. The mesh's
   * extent is the host labels followed by the `perHost` labels. Returns at once;
   * `initialized` resolves when every process is up.
   *
   * `options.processes` packs the mesh's procs into that many OS processes
   * (round robin): a 1,024-rank mesh on a laptop without 1,024 Node processes.
   * `options.name` names the mesh in its procs' output tags: `[trainers host=1 gpus=3]`.
   */
  spawnProcs(perHost: Readonly<Record<string, number>> = {}, options: SpawnProcsOptions = {}): ProcMesh {
    const per = Extent.of(perHost);
    const extent = new Extent([...this.extent.labels, ...per.labels], [...this.extent.sizes, ...per.sizes]);
    for (const label of per.labels) {
      if (this.extent.labels.includes(label)) throw new TypeError(`spawnProcs label '${label}' is already a host label of ${this.extent}; pick another name`);
    }
    const processes = options.processes ?? extent.size;
    if (!Number.isInteger(processes) || processes < 1 || processes > Math.max(extent.size, 1)) {
      throw new RangeError(`processes must be an integer from 1 to the mesh size ${extent.size}, got ${processes}`);
    }
    const places = placesOf(extent, per);
    const name = checkName(options.name);
    // Each rank's output tag; null when output is not streamed (FRAY_LOG_STREAM=0).
    const origins = logStreaming()
      ? Array.from({ length: extent.size }, (_, rank) =>
          originTag(
            name,
            extent.labels,
            extent.labels.map((label) => extent.coords(rank)[label]),
          ),
        )
      : null;
    if (this.agents) {
      // Remote workers start one OS process per proc; packing and threads are this host's only.
      const unsupported = [options.processes !== undefined && "processes", options.threads !== undefined && "threads"].filter(Boolean);
      if (unsupported.length) {
        throw new TypeError(
          `spawnProcs on remote hosts starts one process per proc; the option ${unsupported.join(" and ")} works only on thisHost(). Leave it out here`,
        );
      }
      return this.#spawnRemote(extent, per.size, places, origins);
    }
    // A process holding several procs cannot give each its own environment.
    const packed = processes < extent.size;
    if (!packed) for (const place of places) deviceEnv(place, options.threads ?? false); // a bad device throws before any process starts
    // A slot can start its process again at the same place: a respawn of a rank whose process died.
    const start = (place: ProcPlace | null, tag: string | undefined): ProcSlot => {
      const handle = startProc(currentProc(), WORKER_ENTRY, { thread: options.threads, place, log: tag === undefined ? undefined : { tag } });
      return { addr: handle.addr, handle, restart: () => start(place, tag) };
    };
    const count = Math.min(processes, extent.size);
    // A packed process's actors tag their own lines; what it writes outside them says which process it is.
    const processTag = (i: number) => (packed ? [name, `process ${i + 1}/${count}`].filter(Boolean).join(" ") : origins![i]);
    const started = Array.from({ length: count }, (_, i) => start(packed ? null : places[i], origins ? processTag(i) : undefined));
    const slots = Array.from({ length: extent.size }, (_, i) => started[i % started.length]);
    const initialized = Promise.all(started.map((s) => s.handle!.ready)).then(() => {});
    initialized.catch(() => {});
    return new ProcMesh(Shape.full(extent), slots, initialized, { stopped: false, origins });
  }

  /** Asks each worker for `perHost` procs, named after it; they listen on ports the OS picks there. */
  #spawnRemote(extent: Extent, perHost: number, places: readonly ProcPlace[], origins: readonly string[] | null): ProcMesh {
    const slots: ProcSlot[] = [];
    const proc = currentProc();
    // A slot can ask its worker — or another one, `to`, when the rank moves — for a new proc at the same place.
    const restart =
      (agent: string, place: ProcPlace) =>
      (to?: string): ProcSlot => {
        const worker = to ?? agent;
        const gone = proc.lostPeer(worker);
        if (gone) {
          const fix =
            to === undefined
              ? `respawn(rank, { host }) moves the rank to another worker: pass a HostMesh of one live worker, e.g. attachToWorkers(["tcp://HOST:PORT"]), ` +
                `or of one of the mesh's other hosts`
              : "pass a HostMesh of a live worker as host";
          throw new SupervisionError(`${to === undefined ? "its host's " : ""}worker ${worker} is gone (${gone.message}); ${fix}`, { cause: gone });
        }
        const [handle] = startRemoteProcs(proc, worker, [`${worker}/${proc.nextId()}`], [place], origins ? [origins[place.rank]] : undefined);
        return { addr: handle.addr, handle, restart: restart(worker, place) };
      };
    for (const agent of this.agents!) {
      const addrs = Array.from({ length: perHost }, () => `${agent}/${proc.nextId()}`);
      const at = places.slice(slots.length, slots.length + perHost);
      const tags = origins?.slice(slots.length, slots.length + perHost);
      startRemoteProcs(proc, agent, addrs, at, tags).forEach((handle, i) => slots.push({ addr: handle.addr, handle, restart: restart(agent, at[i]) }));
    }
    const initialized = Promise.all(slots.map((s) => s.handle!.ready)).then(() => {});
    initialized.catch(() => {});
    return new ProcMesh(Shape.full(extent), slots, initialized, { stopped: false, origins });
  }

  toString(): string {
    return `HostMesh(${this.extent})`;
  }
}

/**
 * Where each proc of a mesh of `extent` is, `perHost` of them on each host
 * (host labels come first, so a host's procs are consecutive ranks).
 */
function placesOf(extent: Extent, perHost: Extent): ProcPlace[] {
  const gpus = perHost.labels.indexOf("gpus");
  return Array.from({ length: extent.size }, (_, rank) => ({
    rank,
    worldSize: extent.size,
    localRank: rank % perHost.size,
    localWorldSize: perHost.size,
    gpu: gpus < 0 ? null : perHost.coords(rank % perHost.size).gpus,
  }));
}

/** A mesh name for output tags: one word, so a tag reads `[trainers host=1 gpus=3]`. */
function checkName(name: unknown): string | undefined {
  if (name === undefined) return undefined;
  if (typeof name !== "string" || !/^[^\s[\]=]+$/.test(name)) {
    throw new TypeError(
      `spawnProcs option name must be one word without spaces, brackets or '=' (it tags the procs' output: [trainers host=1]), got ${JSON.stringify(name)}`,
    );
  }
  return name;
}

export interface SpawnProcsOptions {
  /** A name for the mesh, shown in its procs' output tags: `[trainers host=1 gpus=3]`. */
  readonly name?: string;
  /** OS processes (or threads) to run the mesh's procs in; defaults to one per proc. */
  readonly processes?: number;
  /** Run the procs as worker threads of this process instead of separate processes. */
  readonly threads?: boolean;
}

let localHost: HostMesh | null = null;

/** This machine as a HostMesh of size 1 with no labels. */
export function thisHost(): HostMesh {
  return (localHost ??= new HostMesh(new Extent([], [])));
}

/** This process as a ProcMesh of size 1: `thisProc().spawn(…)` runs actors here. */
export function thisProc(): ProcMesh {
  const proc = currentProc();
  return new ProcMesh(Shape.full(new Extent([], [])), [{ addr: proc.addr, handle: null }], Promise.resolve());
}
