// runtime-bundle.test.ts's actor in a module that throws while it runs in a worker (its client marks itself, so it
// can load the module to spawn the class): the spawn fails with that error.
import { Actor } from "../dist/mesh.js";

export class Throws extends Actor {
  hello() {
    return "never";
  }
}

if (!globalThis.runtimeBundleClient) throw new Error("this module throws while it runs in a worker");
