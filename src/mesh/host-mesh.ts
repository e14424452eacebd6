// HostMesh: a mesh of hosts that can start processes. `thisHost()` is this
// machine (no labels, size 1); `thisProc()` is this very process.
import { fileURLToPath } from "node:url";
import { deviceEnv, type ProcPlace } from "../runtime/device-env.ts";
import { startProc } from "../runtime/host-agent.ts";
import { startRemoteProcs } from "../runtime/remote-agent.ts";
import { Proc } from "../runtime/proc.ts";
import { SupervisionError } from "./errors.ts";
import { Extent } from "./extent.ts";
import { ProcMesh, type ProcSlot } from "./proc-mesh.ts";
import { Shape } from "./shape.ts";

// Workers run the bootstrap next to this file: compiled JS, or TypeScript under tsx.
export const BOOTSTRAP = fileURLToPath(new URL(`./bootstrap${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url));

export class HostMesh {
  /** @internal `agents`: the workers' addresses, one per host; null for this machine. */
  constructor(readonly extent: Extent, private readonly agents: readonly string[] | null = null) {}

  get size(): number {
    return this.extent.size;
  }

  /**
   * Starts `perHost` processes on every host, e.g. `{gpus: 4}`. The mesh's
   * extent is the host labels followed by the `perHost` labels. Returns at once;
   * `initialized` resolves when every process is up.
   *
   * `options.processes` packs the mesh's procs into that many OS processes
   * (round robin): a 1,024-rank mesh on a laptop without 1,024 Node processes.
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
    if (this.agents) {
      // Remote workers start one OS process per proc; packing and threads are this host's only.
      const unsupported = [options.processes !== undefined && "processes", options.threads !== undefined && "threads"].filter(Boolean);
      if (unsupported.length) {
        throw new TypeError(`spawnProcs on remote hosts starts one process per proc; the option ${unsupported.join(" and ")} works only on thisHost(). Leave it out here`);
      }
      return this.#spawnRemote(extent, per.size, places);
    }
    // A process holding several procs cannot give each its own environment.
    const packed = processes < extent.size;
    if (!packed) for (const place of places) deviceEnv(place, options.threads ?? false); // a bad device throws before any process starts
    // A slot can start its process again at the same place: a respawn of a rank whose process died.
    const start = (place: ProcPlace | null): ProcSlot => {
      const handle = startProc(BOOTSTRAP, { thread: options.threads, place });
      return { addr: handle.addr, handle, restart: () => start(place) };
    };
    const started = Array.from({ length: Math.min(processes, extent.size) }, (_, i) => start(packed ? null : places[i]));
    const slots = Array.from({ length: extent.size }, (_, i) => started[i % started.length]);
    const initialized = Promise.all(started.map((s) => s.handle!.ready)).then(() => {});
    initialized.catch(() => {});
    return new ProcMesh(Shape.full(extent), slots, initialized);
  }

  /** Asks each worker for `perHost` procs, named after it; they listen on ports the OS picks there. */
  #spawnRemote(extent: Extent, perHost: number, places: readonly ProcPlace[]): ProcMesh {
    const slots: ProcSlot[] = [];
    const proc = Proc.current();
    // A slot can ask its worker for a new proc at the same place: a respawn of a rank whose proc died.
    const restart = (agent: string, place: ProcPlace) => (): ProcSlot => {
      const gone = proc.supervisor.deadProc(agent);
      if (gone) throw new SupervisionError(`worker ${agent} is gone (${gone.message}); a rank can be respawned only on its own host`, { cause: gone });
      const [handle] = startRemoteProcs(agent, [`${agent}/${proc.nextId()}`], [place]);
      return { addr: handle.addr, handle, restart: restart(agent, place) };
    };
    for (const agent of this.agents!) {
      const addrs = Array.from({ length: perHost }, () => `${agent}/${proc.nextId()}`);
      const at = places.slice(slots.length, slots.length + perHost);
      startRemoteProcs(agent, addrs, at).forEach((handle, i) => slots.push({ addr: handle.addr, handle, restart: restart(agent, at[i]) }));
    }
    const initialized = Promise.all(slots.map((s) => s.handle!.ready)).then(() => {});
    initialized.catch(() => {});
    return new ProcMesh(Shape.full(extent), slots, initialized);
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

export interface SpawnProcsOptions {
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
  const proc = Proc.current();
  return new ProcMesh(Shape.full(new Extent([], [])), [{ addr: proc.addr, handle: null }], Promise.resolve());
}
