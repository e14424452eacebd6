// What every launcher shares: meshes named and sized by the user, hosts
// provisioned once on the first `state()` (which keeps the process alive
// meanwhile), and `kill()` to give them back.
import { hold, release } from "../runtime/face/procs.ts";
import type { HostMesh } from "../mesh/host-mesh.ts";

export type LauncherState = Record<string, HostMesh>;

export abstract class Launcher {
  #state: Promise<LauncherState> | null = null;

  /** `what` names a host in messages ("nodes", "pods"); `namePattern` the mesh names the backend accepts. */
  constructor(
    readonly meshes: Readonly<Record<string, number>>,
    what: string,
    namePattern = /^[A-Za-z0-9_-]+$/,
  ) {
    for (const [name, n] of Object.entries(meshes)) {
      if (!Number.isInteger(n) || n < 1) throw new RangeError(`mesh '${name}' asks for ${n} ${what}; give a positive integer`);
      if (!namePattern.test(name)) throw new TypeError(`mesh name ${JSON.stringify(name)} is not allowed here; it must match ${namePattern}`);
    }
  }

  /** Provisions the hosts (once) and returns a HostMesh per mesh name. */
  state(): Promise<LauncherState> {
    if (!this.#state) {
      hold();
      this.#state = this.provision();
      this.#state.then(release, release);
    }
    return this.#state;
  }

  protected abstract provision(): Promise<LauncherState>;

  abstract kill(): Promise<void>;

  /** `kill()`, for `await using job = new ProcessJob(…)`: the hosts are given back when the block ends. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.kill();
  }
}
