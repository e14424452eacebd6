// The actor of worker-process-group.test.ts and its driver: one that starts a subprocess and tells its pid.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Actor } from "../../src/mesh.ts";

/** Starts `sleep 1000` (not detached: it stays in its worker's process group) and answers with [its worker's pid, its pid]. */
export class SubprocessStarter extends Actor {
  async start(): Promise<[number, number]> {
    const child = spawn("sleep", ["1000"], { stdio: "ignore" });
    await once(child, "spawn");
    return [process.pid, child.pid!];
  }
}
