// Calls for actors not spawned here yet. A message can overtake its actor's
// spawn when it comes from another process (a mesh handed to an actor before
// the spawner's own message arrived), so it waits for the spawn, up to
// FRAY_SPAWN_WAIT_MS; then its caller hears that no such actor was spawned.
import type { Frame } from "../../wire/frame.ts";
import { config, settingName } from "../base/config.ts";
import type { Call } from "../base/messages.ts";

/** A call waiting for its actor: the call, the member's rank, and the frame with its arguments. */
export type ParkedCall = [call: Call, rank: number, frame: Frame];

export class ParkedCalls {
  #parked = new Map<string, { calls: ParkedCall[]; timer: NodeJS.Timeout }>();

  /** `expired` answers each call that waited in vain on `where` (this proc's address). */
  constructor(
    private readonly where: string,
    private readonly expired: (call: Call, rank: number, error: Error) => void,
  ) {}

  /** Holds a call for `actor` until it is spawned (see `take`) or FRAY_SPAWN_WAIT_MS passes. */
  park(actor: string, call: Call, rank: number, frame: Frame): void {
    let parked = this.#parked.get(actor);
    if (!parked) {
      const timer = setTimeout(() => {
        this.#parked.delete(actor);
        for (const [c, r] of parked!.calls) {
          this.expired(
            c,
            r,
            new Error(`no actor ${actor} on ${this.where}: it was not spawned here within ${config.spawnWaitMs} ms (${settingName("spawnWaitMs")})`),
          );
        }
      }, config.spawnWaitMs);
      timer.unref();
      this.#parked.set(actor, (parked = { calls: [], timer }));
    }
    parked.calls.push([call, rank, frame]);
  }

  /** The calls waiting for `actor`, which has just been spawned, in arrival order. */
  take(actor: string): ParkedCall[] {
    const parked = this.#parked.get(actor);
    if (!parked) return [];
    this.#parked.delete(actor);
    clearTimeout(parked.timer);
    return parked.calls;
  }
}
