// The owner of the actors a client hosts in its own process (Client.hostActor).
// Whoever spawns a mesh hears of its failures; a client process has no
// supervise() and would exit on one, so a keeper actor in the process spawns
// them and hears instead: a hosted actor that fails (currentActor().fail(), a
// one-way call that throws) ends, and its name leaves the namespace.
import { Actor } from "../../mesh/actor.ts";
import type { MeshFailure } from "../../mesh/errors.ts";
import { thisProc } from "../../mesh/host-mesh.ts";
import { messageContext, type MessageContext } from "../../runtime/face/procs.ts";

interface Entry {
  context?: MessageContext;
  readonly failed: (failure: MeshFailure) => void;
}

/** Keepers being constructed, by token (the constructor runs in this process, through the runtime). */
const starting = new Map<string, Entry>();
let next = 0;

export class HostKeeper extends Actor {
  readonly #entry: Entry;

  constructor(token: string) {
    super();
    this.#entry = starting.get(token)!;
    this.#entry.context = messageContext.getStore();
  }

  supervise(failure: MeshFailure): boolean {
    this.#entry.failed(failure);
    return true;
  }
}

export interface Keeper {
  /** Runs `spawn` as the keeper, which then owns what it spawns. */
  asOwner<T>(spawn: () => T): T;
  /** Stops the keeper and the actors it owns. */
  stop(): Promise<void>;
}

/** Starts a keeper in this process; `failed` hears of each failure of a mesh it owns. */
export async function startKeeper(failed: (failure: MeshFailure) => void): Promise<Keeper> {
  const token = `${process.pid}-${next++}`;
  const entry: Entry = { failed };
  starting.set(token, entry);
  try {
    const mesh = thisProc().spawn("fray-client-host", HostKeeper, token);
    await mesh.initialized;
    return { asOwner: (spawn) => messageContext.run(entry.context!, spawn), stop: () => mesh.stop() };
  } finally {
    starting.delete(token);
  }
}
