// The actors of one process: spawned when a "spawn" message comes (this
// subsystem serves that kind), found by key (`${meshId}.${member}`) by whoever
// delivers calls to them, and stopped together when the process exits.
import type { Encoded } from "../../wire/codec.ts";
import type { HeaderSender, Spawn } from "../base/messages.ts";
import type { Router } from "../proc/routes.ts";
import { SubsystemKey } from "../proc/subsystems.ts";
import { ActorCell, type ActorHost } from "./actor-cell.ts";

/** Asks the process at `addr` to create an actor; it answers on `spawn.reply` once constructed. `payload`: the constructor's arguments. */
export function sendSpawn(proc: HeaderSender, addr: string, spawn: Omit<Spawn, "kind">, payload: Encoded): void {
  proc.send(addr, { kind: "spawn", ...spawn }, payload);
}

/** What the table needs besides what its actors need. */
export interface ActorTableHost extends ActorHost, Router {
  /** Actor `cell` was just spawned here (calls that overtook its spawn go to it now). */
  spawned(cell: ActorCell): void;
}

export const ACTORS = new SubsystemKey<ActorTable>("actor table");

export class ActorTable {
  readonly #cells = new Map<string, ActorCell>();

  constructor(host: ActorTableHost) {
    const cellHost: ActorHost = {
      ...host,
      gone: (cell, error) => {
        this.#cells.delete(cell.key);
        host.gone(cell, error);
      },
    };
    host.route("spawn", (header: Spawn, frame) => {
      const cell = ActorCell.spawn(cellHost, header, frame);
      this.#cells.set(header.actor, cell);
      host.spawned(cell);
    });
  }

  /** The local actor `key`, if it lives here. */
  get(key: string): ActorCell | undefined {
    return this.#cells.get(key);
  }

  /** How many actors live here. */
  get size(): number {
    return this.#cells.size;
  }

  values(): IterableIterator<ActorCell> {
    return this.#cells.values();
  }

  /** Stops every actor here (running their cleanups): the process is exiting. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#cells.values()].map((cell) => cell.stop()));
  }
}
