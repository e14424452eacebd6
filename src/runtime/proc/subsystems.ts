// The per-process subsystems attached to a Proc (actors, calls, buffers,
// collectives, supervision, …): one mechanism, a typed key per subsystem, so a
// Proc holds them without knowing their types and code that has the Proc finds
// them by the key their module exports. A key is known by its name across
// copies of this module (compiled and source can both be loaded in a worker).

/** The key of one kind of subsystem. */
export class SubsystemKey<T> {
  declare readonly __type?: T;
  readonly id: symbol;
  /** `name` is unique among subsystems and appears in messages. */
  constructor(readonly name: string) {
    this.id = Symbol.for(`fray.subsystem.${name}`);
  }
}

export class Subsystems {
  readonly #attached = new Map<symbol, unknown>();

  constructor(private readonly addr: string) {}

  attach<T>(key: SubsystemKey<T>, subsystem: T): T {
    if (this.#attached.has(key.id)) throw new Error(`${this.addr} already has a ${key.name} attached`);
    this.#attached.set(key.id, subsystem);
    return subsystem;
  }

  get<T>(key: SubsystemKey<T>): T {
    const found = this.#attached.get(key.id);
    if (found === undefined) throw new Error(`${this.addr} has no ${key.name} attached: make Procs with runtime/runtime.ts, which attaches every subsystem`);
    return found as T;
  }
}
