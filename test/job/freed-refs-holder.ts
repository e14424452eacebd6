// A mesh actor for freed-refs.test.ts that keeps what it is given. Its module imports only fray's mesh layer, so
// in a proc nothing of a job runs in, an ObjectRef it keeps is passed through uncounted.
import { Actor } from "../../src/mesh.ts";

export class MeshHolder extends Actor {
  #kept: unknown = null;

  keep(value: unknown): void {
    this.#kept = value;
  }

  fetch(): unknown {
    return this.#kept;
  }
}
