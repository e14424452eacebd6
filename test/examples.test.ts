// The examples run as users run them, and give the same answer on every backend.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { it } from "node:test";

const main = fileURLToPath(new URL("../examples/word-count/main.ts", import.meta.url));

it("word count (map/reduce) gives the same counts on sync, threads and processes", () => {
  const outputs = ["sync", "threads", "processes"].map((kind) => {
    const { status, stdout, stderr } = spawnSync(process.execPath, ["--import", "tsx", main, kind, "8"], {
      encoding: "utf8",
      timeout: 150_000,
      killSignal: "SIGKILL",
    });
    assert.equal(status, 0, stderr);
    return JSON.parse(stdout) as { kind: string; words: number; top: [string, number][] };
  });
  assert.ok(outputs[0].words > 50_000, `counted ${outputs[0].words} words`);
  for (const o of outputs.slice(1)) assert.deepEqual({ words: o.words, top: o.top }, { words: outputs[0].words, top: outputs[0].top });
});
