// The seeds' workloads, composed, each run as a user's program to its end on every backend it applies to: a
// journey asserts its own exact results and prints one summary line (journey.ts); here its exit status and that
// line are checked. The chaos run (scripts/chaos.ts) runs the same programs while it injects faults.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { runProgram } from "../helpers.ts";
import { readJourneyLine } from "./journey.ts";
import { JOURNEYS } from "./journey-list.ts";

for (const { journey, kinds, args } of JOURNEYS) {
  describe(`journey: ${journey}`, () => {
    for (const kind of kinds) {
      it(`runs to its exact results on ${kind}`, { timeout: 240_000 }, async (t) => {
        const program = fileURLToPath(new URL(`./${journey}.ts`, import.meta.url));
        const run = await runProgram(t, program, [kind, ...(args?.[kind] ?? [])]);
        assert.deepEqual({ code: run.code, signal: run.signal }, { code: 0, signal: null }, run.stderr);
        const summary = readJourneyLine(run.stdout);
        assert.ok(summary, `no JOURNEY line in its output:\n${run.stdout}\n${run.stderr}`);
        assert.equal(summary.journey, journey);
        assert.equal(summary.kind, kind);
      });
    }
  });
}
