// The examples run as users run them (npx tsx examples/NAME/main.ts …), at small
// sizes, and print what their READMEs say they print.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { it } from "node:test";
import { createCluster } from "../src/cluster.ts";
import { mapFile, reducePartition, writeInput, type Totals } from "../examples/data-pipeline/stages.ts";

/** Runs examples/`name`/main.ts with `args`; its stdout, or fails with its stderr. */
function example(name: string, ...args: string[]): string {
  const main = fileURLToPath(new URL(`../examples/${name}/main.ts`, import.meta.url));
  const { status, stdout, stderr } = spawnSync(process.execPath, ["--import", "tsx", main, ...args], {
    encoding: "utf8",
    timeout: 150_000,
    killSignal: "SIGKILL",
  });
  assert.equal(status, 0, `${name} exited with ${status}:\n${stderr}\n${stdout}`);
  return stdout;
}

/** A local cluster in a directory of its own, gone (namespace service, jobs' state) after `fn`. */
async function withLocalCluster(fn: (spec: string) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "fray-example-cluster-"));
  const spec = `local?dir=${dir}`;
  try {
    fn(spec);
  } finally {
    await createCluster(spec).stopNamespace();
    rmSync(dir, { recursive: true, force: true });
  }
}

it("word count (map/reduce) gives the same counts on sync, threads and processes", () => {
  const outputs = ["sync", "threads", "processes"].map((kind) => JSON.parse(example("word-count", kind, "8")) as { words: number; top: [string, number][] });
  assert.ok(outputs[0].words > 50_000, `counted ${outputs[0].words} words`);
  for (const o of outputs.slice(1)) assert.deepEqual({ words: o.words, top: o.top }, { words: outputs[0].words, top: outputs[0].top });
});

it("data-pipeline: map → shuffle → reduce gives, on sync, threads and processes, the totals one loop over the files gives", () => {
  const dir = mkdtempSync(join(tmpdir(), "fray-pipeline-check-"));
  let expected: Totals;
  try {
    const rates = { emea: 1, amer: 0.92, apac: 0.0061 };
    expected = reducePartition(...Array.from({ length: 5 }, (_, i) => mapFile(writeInput(dir, i, 3000), rates, 1)[0]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const euros = Math.round(Object.values(expected).reduce((a, b) => a + b, 0) * 100) / 100;
  for (const kind of ["sync", "threads", "processes"]) {
    const out = JSON.parse(example("data-pipeline", kind, "5", "3000")) as {
      kind: string;
      rows: number;
      products: number;
      euros: number;
      top: [string, number][];
    };
    const top = Object.entries(expected)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 3);
    assert.deepEqual(out, { kind, files: 5, rows: 15_000, products: Object.keys(expected).length, euros, top });
  }
});

it("launch-training: a job with resources, an npm package and a retry; the crashed replica resumes from its checkpoint; logs stream", async () => {
  await withLocalCluster((spec) => {
    const out = example("launch-training", "--epochs", "5", "--rows", "2000", "--cluster", spec);
    assert.match(out, /^launched train-/);
    assert.match(out, /\[replica-1\] Error: replica 1 lost its accelerator at epoch 3/);
    assert.match(out, /\[replica-1\] replica 1: resumed from its checkpoint at epoch 3/);
    for (const r of [0, 1]) {
      const losses = [...out.matchAll(new RegExp(`\\[replica-${r}\\] replica ${r}: epoch \\d/5 loss ([\\d.]+)`, "g"))].map((m) => Number(m[1]));
      assert.equal(losses.length, 5, out);
      assert.ok(losses[4] < losses[0] / 10, `replica ${r}'s loss fell: ${losses.join(", ")}`);
    }
    assert.match(out, /succeeded: 1 failure\(s\) retried/);
  });
});
