// Two minutes of the chaos run (scripts/chaos.ts) with a fixed seed: journeys under SIGKILLed and SIGSTOPped
// workers, dropped connections and a full /dev/shm must each end with their exact results, leave no process
// behind, and leave /dev/shm as they found it. Longer runs: `npm run chaos -- --minutes N --seed S`.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { it } from "node:test";
import { runProgram } from "../helpers.ts";

const script = fileURLToPath(new URL("../../scripts/chaos.ts", import.meta.url));

it("journeys keep their exact results under two minutes of seeded faults", { timeout: 600_000 }, async (t) => {
  const run = await runProgram(t, script, ["--minutes", "2", "--seed", "20261127"]);
  const lines = run.stdout.split("\n").filter((line) => line.startsWith("chaos "));
  assert.ok(lines.length > 0, `the chaos run printed no journey:\n${run.stdout}\n${run.stderr}`);
  assert.deepEqual(
    lines.filter((line) => !/: ok in /.test(line)),
    [],
    run.stdout,
  );
  assert.deepEqual({ code: run.code, signal: run.signal }, { code: 0, signal: null }, `${run.stdout}\n${run.stderr}`);
});
