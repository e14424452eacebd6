// ProcMesh: a mesh of processes. `spawn` puts one actor on each and returns the
// ActorMesh at once; messages sent before the processes or actors are up are
// delivered after construction, in order.
import { encodeArguments } from "../wire/codec.ts";
import { locate, scriptOf } from "../runtime/face/code.ts";
import { currentProc, hold, messageContext, release } from "../runtime/face/procs.ts";
import { sendSpawn, type RawExtent } from "../runtime/face/actors.ts";
import { ActorMeshImpl, checkEndpointNames, type ActorMesh } from "./actor-mesh.ts";
import { SendGate, type MeshRef } from "./mesh-state.ts";
import { ActorError, SupervisionError } from "./errors.ts";
import { Extent } from "./shape/extent.ts";
import { RankRespawner, type ProcSlot } from "./respawn/rank-respawner.ts";
import { Shape, type SliceSpec } from "./shape/shape.ts";
import { SUPERVISOR } from "../runtime/face/supervision.ts";

/** @inline */
type ActorClass = abstract new (...args: never[]) => unknown;

/**
 * Spawns with options the public `spawn` does not take (the job layer's
 * actors): `procMesh[kSpawnWith](options, name, Class, ...args)`. Not part of
 * the `fray/mesh` facade.
 */
export const kSpawnWith = Symbol("fray.spawnWith");

/** The options of `kSpawnWith`. */
export interface SpawnOptions {
  /** How many messages of each actor may run at once (async endpoints interleave at awaits); default 1. */
  readonly maxConcurrency?: number;
  /** The mesh id, instead of a fresh one: a well-known actor that processes told only its address can call (mesh-at.ts). */
  readonly id?: string;
  /** Plain data every member is told about itself (its `context`'s ActorIdentity.meta), kept across respawns. */
  readonly meta?: unknown;
}

/**
 * Kills the processes of a ProcMesh (worker threads: terminates them) at once,
 * as a crash would — their actors fail and owners hear of it — so that
 * `respawn` can start them again: `procMesh[kKillProcs]()`. The job layer's
 * way to stop a task stuck in code that never yields. Not part of the facade.
 */
export const kKillProcs = Symbol("fray.killProcs");

const SPAWN_OPTIONS = new Set(["maxConcurrency", "id", "meta"]);

function checkSpawnOptions(options: SpawnOptions): void {
  const unknown = Object.keys(options).filter((k) => !SPAWN_OPTIONS.has(k));
  if (unknown.length) throw new TypeError(`unknown spawn option ${unknown.join(", ")}; the options are: ${[...SPAWN_OPTIONS].join(", ")}`);
  const n = options.maxConcurrency;
  if (n !== undefined && (typeof n !== "number" || !Number.isInteger(n) || n < 1)) {
    throw new RangeError(
      `maxConcurrency must be a whole number ≥ 1 (how many calls of one actor may run at once), got ${String(n)}; pass e.g. 4, or leave it ` +
        `out for one at a time`,
    );
  }
}

/** What a ProcMesh and its slices share. */
interface ProcMeshState {
  stopped: boolean;
  /** Each proc's output tag, by its rank in the mesh spawnProcs made (log-origin.ts); null or absent: not streamed. */
  readonly origins?: readonly string[] | null;
}

export class ProcMesh {
  #shape: Shape;
  #slots: ProcSlot[]; // shared with slices; a respawn replaces a dead process in place
  #state: ProcMeshState; // shared with slices

  /** Resolves when every process is up. */
  readonly initialized: Promise<void>;

  /** @internal */
  constructor(shape: Shape, slots: ProcSlot[], initialized: Promise<void>, state: ProcMeshState = { stopped: false }) {
    this.#shape = shape;
    this.#slots = slots;
    this.initialized = initialized;
    this.#state = state;
  }

  get extent(): Extent {
    return this.#shape.extent;
  }

  get size(): number {
    return this.#shape.extent.size;
  }

  get sizes(): Record<string, number> {
    return this.#shape.extent.dims;
  }

  /** Process ids of the OS processes this one started for the mesh, in rank order. */
  get pids(): number[] {
    return [...new Set(this.#members().flatMap((s) => (s.handle && s.handle.pid > 0 ? [s.handle.pid] : [])))];
  }

  slice(spec: SliceSpec): ProcMesh {
    return new ProcMesh(this.#shape.slice(spec), this.#slots, this.initialized, this.#state);
  }

  rename(mapping: Readonly<Record<string, string>>): ProcMesh {
    return new ProcMesh(this.#shape.rename(mapping), this.#slots, this.initialized, this.#state);
  }

  flatten(label: string): ProcMesh {
    return new ProcMesh(this.#shape.flatten(label), this.#slots, this.initialized, this.#state);
  }

  /**
   * Spawns an actor of `Class` (exported from any module) on every process.
   * Throws at once if an argument cannot be sent; an unexported class makes
   * `initialized` and every call reject with an error saying to export it.
   */
  spawn<C extends ActorClass>(name: string, Class: C, ...args: ConstructorParameters<C>): ActorMesh<InstanceType<C>> {
    return this[kSpawnWith]({}, name, Class, ...args);
  }

  /** @internal `spawn` with options; see kSpawnWith. */
  [kSpawnWith]<C extends ActorClass>(options: SpawnOptions, name: string, Class: C, ...args: ConstructorParameters<C>): ActorMesh<InstanceType<C>> {
    checkSpawnOptions(options);
    const mc = options.maxConcurrency;
    if (this.#state.stopped) throw new SupervisionError(`cannot spawn '${name}': this ProcMesh was stopped`);
    if (typeof Class !== "function") throw new TypeError(`spawn('${name}', …) needs an actor class, got ${typeof Class}`);
    scriptOf(Class); // throws now for built-ins and bound functions
    checkEndpointNames(Class);
    const payload = encodeArguments(args, `new ${Class.name}`);
    const proc = currentProc();
    const extent = this.#shape.extent;
    const addrs = this.#members().map((s) => s.addr);
    const origins = this.#state.origins ?? undefined;
    const members = this.#shape.members;
    const id = options.id ?? proc.nextId();
    const gate = new SendGate();
    const rawExtent: RawExtent = [extent.labels, extent.sizes];

    let resolveInit!: () => void;
    let rejectInit!: (e: Error) => void;
    const initialized = new Promise<void>((res, rej) => ((resolveInit = res), (rejectInit = rej)));
    initialized.catch(() => {}); // observed through calls too; never an unhandled rejection
    let pending = extent.size;
    hold();
    const settle = (error?: Error) => {
      if (pending < 0) return;
      if (error) {
        pending = -1;
        release();
        proc.closePort(port);
        unwatch();
        rejectInit(error);
      } else if (--pending === 0) {
        pending = -1;
        release();
        proc.closePort(port);
        unwatch();
        resolveInit();
      }
    };
    const port = proc.openPort((rank, ok, value) =>
      settle(ok ? undefined : new ActorError(`${Class.name} constructor`, name, { rank, coords: extent.coords(rank), mesh: name }, value)),
    );
    const unwatch = proc.onPeerLost((addr, error) => {
      if (addrs.includes(addr)) settle(new SupervisionError(`cannot spawn '${name}': ${error.message}`, { cause: error }));
    });
    if (extent.size === 0) settle();

    const ownerActor = messageContext.getStore()?.actor.actorId ?? null;
    proc.get(SUPERVISOR).adopt({ id, name, ownerActor, addrs, className: Class.name, extent: extent.dims });

    const located = locate(Class);
    located.then(
      ({ url, exportName }) => {
        addrs.forEach((addr, rank) => {
          sendSpawn(
            proc,
            addr,
            {
              actor: `${id}.${rank}`,
              name,
              url,
              exportName,
              rank,
              extent: rawExtent,
              owner: proc.addr,
              ownerActor,
              reply: { addr: proc.addr, id: port },
              ...(mc === undefined ? {} : { maxConcurrency: mc }),
              ...(origins ? { origin: origins[members[rank]] } : {}),
              ...(options.meta === undefined ? {} : { meta: options.meta }),
            },
            payload,
          );
        });
        gate.release();
      },
      (error: Error) => {
        gate.fail(error);
        settle(error);
      },
    );
    const state = this.#state;
    const recipe = {
      ownerActor,
      ext: rawExtent,
      maxConcurrency: mc,
      meta: options.meta,
      payload,
      located,
      slots: this.#slots,
      slotOf: this.#shape.members,
      procsStopped: () => state.stopped,
      origins,
    };
    const ref: MeshRef = { id, name, className: Class.name, extent, addrs, version: 0, Class, inflight: new Map(), gate, initialized };
    ref.respawner = new RankRespawner(ref, recipe);
    return ActorMeshImpl.create<InstanceType<C>>(ref, Shape.full(extent));
  }

  /** Ends the processes this mesh started and waits for them to exit. Later `spawn` calls throw. */
  async stop(): Promise<void> {
    this.#state.stopped = true;
    const handles = new Set(this.#members().flatMap((s) => (s.handle ? [s.handle] : [])));
    await Promise.all([...handles].map((h) => h.stop()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  /** @internal See kKillProcs. */
  [kKillProcs](): void {
    for (const slot of new Set(this.#members())) slot.handle?.kill("SIGKILL");
  }

  #members(): ProcSlot[] {
    return this.#shape.members.map((m) => this.#slots[m]);
  }

  toString(): string {
    return `ProcMesh(${this.#shape.extent})`;
  }
}
