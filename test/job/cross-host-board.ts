// The named actor of the cross-host jobs test: holds what the trainer posts until a rollout takes it.
import type { Port, RemoteBuffer } from "../../src/mesh.ts";

export class Board {
  #posted: [RemoteBuffer, Port<number>] | null = null;
  post(buf: RemoteBuffer, port: Port<number>): void {
    this.#posted = [buf, port];
  }
  take(): [RemoteBuffer, Port<number>] | null {
    return this.#posted;
  }
}
