// runtime-bundle.test.ts's actor: plain JavaScript on the compiled package, as a user's module would be.
import { basename } from "node:path";
import { Actor, currentRank } from "../dist/mesh.js";
import { Actor as ActorOwnFile } from "../dist/mesh/actor.js";

export class WhereAmI extends Actor {
  where() {
    // currentRank() reads the runtime's context: it answers only if this module's fray/mesh is the worker's runtime.
    return { rank: currentRank().rank, oneActorClass: Actor === ActorOwnFile, pid: process.pid, entry: basename(process.argv[1]) };
  }
}
