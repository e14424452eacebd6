// D7: the CSV job of issue 47 — 40 generated files, 6.64 M rows (~150 MB), cents summed per category and per user,
// the top users; exact in every variant (checked against the generator's own sums). Plain one-process Node is the
// baseline, in the same run, alternating with fray: a `processes` job on 2 workers whose map tasks return their
// partitions with numReturns and whose reducers take the refs (bench/fixtures/csv-driver.js), so no partition
// passes through the driver; and the same parse split by hand over 2 plain node processes, the bound 2 cores give.
// Each run is a process of its own, so its peak RSS is that job's alone.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { answer, CATEGORIES, USERS, writeCsv } from "../fixtures/csv-job.js";
import { report, scale, scratch, want } from "../lib/group.js";
import { median } from "../lib/stats.js";

const FILES = 40;
const ROWS = 166_000;
const MiB = 2 ** 20;
const runs = Math.max(1, Math.round(3 * scale));
const driver = fileURLToPath(new URL("../fixtures/csv-driver.js", import.meta.url));

if (want("D7")) {
  const dir = join(scratch, "csv");
  mkdirSync(dir);
  const categories = new Float64Array(CATEGORIES);
  const users = new Float64Array(USERS);
  for (let f = 0; f < FILES; f++) writeCsv(dir, f, ROWS, categories, users);
  const expected = answer(categories, users);
  const run = (variant, parser) => {
    const out = JSON.parse(execFileSync(process.execPath, [driver, variant, parser, dir], { encoding: "utf8", maxBuffer: 16 * MiB }));
    assert.deepEqual(out.result, expected, `${variant} (${parser}) got other totals than the files hold`);
    return out;
  };
  for (const parser of ["lines", "bytes"]) {
    const [plain, fray, split] = [[], [], []];
    for (let i = 0; i < runs; i++) {
      plain.push(run("plain", parser));
      fray.push(run("fray", parser));
      if (parser === "lines") split.push(run("split", parser));
    }
    const ms = (outs) => median(outs.map((o) => o.ms));
    const mib = (bytes) => (bytes / MiB).toFixed(0);
    const [frayMs, plainMs] = [ms(fray), ms(plain)];
    const how = parser === "lines" ? "parsed as a user writes it (split lines and fields)" : "parsed byte by byte (no strings made)";
    report(
      "D7",
      `issue 47's CSV job (${FILES} files, ${(FILES * ROWS) / 1e6} M rows, ~150 MB; exact sums), ${how}: ` +
        `processes, 2 workers, map tasks return partitions with numReturns; median of ${runs}`,
      frayMs.toFixed(0),
      "ms",
      `plain one-process Node ${plainMs.toFixed(0)} ms, alternating`,
      `${(plainMs / frayMs).toFixed(2)}× plain Node`,
      parser === "lines" ? "≥ 1.5× faster than plain Node" : "(no goal: the parse is too cheap to spread)",
      plainMs / frayMs >= 1.5,
    );
    if (parser !== "lines") continue;
    const splitMs = ms(split);
    report(
      "D7",
      "the same parse by hand on 2 plain node processes (started first; each parses every other file and sends its sums back): " +
        `what 2 cores give this job without fray; median of ${runs}`,
      splitMs.toFixed(0),
      "ms",
      `plain one-process Node ${plainMs.toFixed(0)} ms; fray ${frayMs.toFixed(0)} ms`,
      `${(plainMs / splitMs).toFixed(2)}× plain Node (fray: ${(splitMs / frayMs).toFixed(2)}× this)`,
      "(no goal: the bound of 2 cores)",
      null,
    );
    const peak = Math.max(...fray.map((o) => o.peakRss));
    const idle = Math.max(...fray.map((o) => o.idleRss));
    report(
      "D7",
      "the same job: the fray driver's peak RSS (the most of its runs)",
      mib(peak),
      "MiB",
      `its idle RSS (job context up, workers started) ${mib(idle)} MiB; plain Node's peak ${mib(Math.max(...plain.map((o) => o.peakRss)))} MiB`,
      `+${mib(peak - idle)} MiB over idle`,
      "within 64 MiB of idle",
      peak - idle <= 64 * MiB,
    );
  }
}
