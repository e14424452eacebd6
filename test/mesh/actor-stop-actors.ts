// An actor for test/mesh/actor-stop.test.ts: a call that waits for something that never comes.
import { Actor } from "../../src/mesh.ts";

export class Waiter extends Actor {
  readonly #never = new Promise<never>(() => {});

  async waitForever(): Promise<never> {
    return this.#never;
  }
}
