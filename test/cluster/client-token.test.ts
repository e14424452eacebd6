// A program that used a mesh of its own, or getJobContext(), before it opens a Client of a cluster: the process
// then speaks to its own workers with its own token and to the cluster's namespace with the cluster's, and both work.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { clusterFixture } from "./cluster-suite.ts";
import { runProgram } from "../helpers.ts";

const program = fileURLToPath(new URL("./client-token-program.ts", import.meta.url));

describe("a process with its own workers and a cluster Client", () => {
  const fx = clusterFixture("local");
  for (const [first, local, again] of [
    ["mesh", "2", "3"],
    ["context", "49", "49"],
  ]) {
    it(`a ${first === "mesh" ? "local mesh" : "getJobContext()"} first, then a Client: each works, with its own token`, { timeout: 120_000 }, async (t) => {
      const { code, signal, stdout, stderr } = await runProgram(t, program, [fx.spec, first]);
      assert.deepEqual({ code, signal }, { code: 0, signal: null }, stderr);
      assert.equal(stdout, `local ${local}\ncluster pong\nlocal again ${again}\n`);
    });
  }
});
