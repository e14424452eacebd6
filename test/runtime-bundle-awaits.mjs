// runtime-bundle.test.ts's actor in a module that awaits at top level: require() refuses it, so a worker import()s it.
import { Actor } from "../dist/mesh.js";

const greeting = await Promise.resolve("awaited");

export class Awaits extends Actor {
  greet() {
    return greeting;
  }
}
