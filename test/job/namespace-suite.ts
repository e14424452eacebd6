// Named and detached actors shared by a cluster's jobs through its namespace
// service: the same tests on `local` (job/namespace.test.ts) and a real Slurm (cluster/slurm.test.ts).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { Entrypoint, type Cluster } from "../../src/cluster.ts";
import { pollUntil } from "../../src/runtime/base/poll.ts";
import { bumpNamed, rollout, trainer } from "../fixtures/namespace-actors.ts";
import { clusterFixture } from "../cluster/cluster-suite.ts";
import { waitForExit } from "../helpers.ts";

const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

/** `fray actor ARGS --cluster SPEC`, as a user types it. */
export function frayActor(spec: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [bin, "actor", ...args, "--cluster", spec], { encoding: "utf8", timeout: 60_000, killSignal: "SIGKILL" });
}

async function logs(cluster: Cluster, id: string): Promise<string> {
  return (await cluster.logs(id)).join("\n");
}

/** Runs a job to its end, and fails the test with its logs if it did not succeed. */
async function run(cluster: Cluster, name: string, entrypoint: Entrypoint): Promise<string> {
  const id = await cluster.launch({ name, entrypoint });
  const info = await cluster.wait(id, { timeout: 240, raiseOnFailure: false });
  assert.equal(info.status, "succeeded", `${name}: ${info.errorMessage}\n${await logs(cluster, id)}`);
  return logs(cluster, id);
}

export function namespaceSuite(kind: "local" | "slurm"): void {
  describe(`named actors across the jobs of a ${kind} cluster`, () => {
    const fx = clusterFixture(kind);

    it(
      "RL: a trainer and two rollouts, three cluster jobs, share one curriculum; the trainer sees every report; fray actor list shows one " + "curriculum",
      async () => {
        const jobs = [
          fx.cluster.launch({ name: "trainer", entrypoint: Entrypoint.fromCallable(trainer, [6]) }),
          fx.cluster.launch({ name: "rollout-a", entrypoint: Entrypoint.fromCallable(rollout, ["a", 3]) }),
          fx.cluster.launch({ name: "rollout-b", entrypoint: Entrypoint.fromCallable(rollout, ["b", 3]) }),
        ];
        const ids = await Promise.all(jobs);
        const infos = await fx.cluster.wait(ids, { timeout: 240, raiseOnFailure: false });
        for (const [i, info] of infos.entries())
          assert.equal(info.status, "succeeded", `${info.name}: ${info.errorMessage}\n${await logs(fx.cluster, ids[i])}`);
        assert.match(await logs(fx.cluster, ids[0]), /trainer saw \["a:0","a:1","a:2","b:0","b:1","b:2"\]/);
        const list = frayActor(fx.spec, "list", "--json");
        assert.equal(list.status, 0, list.stderr);
        const curricula = (JSON.parse(list.stdout) as Array<{ name: string; className: string; state: string; lifetime: string }>).filter(
          (a) => a.name === "curriculum",
        );
        assert.equal(curricula.length, 1);
        assert.deepEqual({ ...curricula[0] }, { ...curricula[0], className: "Curriculum", state: "alive", lifetime: "detached" });
        const killed = frayActor(fx.spec, "kill", "curriculum");
        assert.equal(killed.status, 0, killed.stderr);
      },
    );

    it("a detached actor outlives the job that made it, keeps its state for the next job; fray actor kill ends it and frees the name", async () => {
      assert.match(await run(fx.cluster, "make-keeper", Entrypoint.fromCallable(bumpNamed, ["keeper", "detached"])), /keeper calls=1 pid=\d+/);
      const again = /keeper calls=(\d+) pid=(\d+)/.exec(await run(fx.cluster, "find-keeper", Entrypoint.fromCallable(bumpNamed, ["keeper", "detached"])));
      assert.equal(again?.[1], "2", "the second job found the first one's actor, state intact");
      const pid = Number(again![2]);
      const list = frayActor(fx.spec, "list");
      assert.match(list.stdout, new RegExp(`keeper\\s+Restartable\\s+\\S+\\s+${pid}\\s+alive\\s+0\\s+detached`));
      const killed = frayActor(fx.spec, "kill", "keeper");
      assert.equal(killed.status, 0, killed.stderr);
      await waitForExit([pid]); // its process ends with it
      assert.doesNotMatch(frayActor(fx.spec, "list").stdout, /keeper/);
      const unknown = frayActor(fx.spec, "kill", "keeper");
      assert.equal(unknown.status, 1);
      assert.match(unknown.stderr, /fray actor kill: there is no actor named 'keeper' in this namespace; 'fray actor list' shows the names/);
      assert.match(
        await run(fx.cluster, "new-keeper", Entrypoint.fromCallable(bumpNamed, ["keeper", "detached"])),
        /keeper calls=1 /,
        "the name was free: a new actor",
      );
      frayActor(fx.spec, "kill", "keeper");
    });

    it("an ephemeral named actor dies with its job", async () => {
      const out = /brief calls=1 pid=(\d+)/.exec(await run(fx.cluster, "brief", Entrypoint.fromCallable(bumpNamed, ["brief", "ephemeral"])));
      assert.ok(out, "the job made its actor");
      // The service learns of the driver's end from its connection closing, a moment after the job ends.
      await pollUntil(() => !frayActor(fx.spec, "list").stdout.includes("brief"), {
        intervalMs: 100,
        deadlineMs: 30_000,
        what: "brief to leave the namespace",
        bound: "the test's 30 s",
      });
      await waitForExit([Number(out[1])]);
    });

    it("the namespace service killed: named-actor calls fail naming it; started again, new names work", async () => {
      const service = await fx.cluster.namespace();
      process.kill(service.pid, "SIGKILL");
      await waitForExit([service.pid]);
      const list = frayActor(fx.spec, "list");
      assert.equal(list.stdout.trim(), "no actors", "nothing runs, so nothing is listed and nothing is started");
      assert.match(await run(fx.cluster, "after", Entrypoint.fromCallable(bumpNamed, ["after", "detached"])), /after calls=1 /);
      const restarted = await fx.cluster.namespace();
      assert.notEqual(restarted.pid, service.pid);
      assert.equal(restarted.address, service.address, "it keeps its address across restarts");
      frayActor(fx.spec, "kill", "after");
    });
  });
}
