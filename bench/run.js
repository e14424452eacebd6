// `npm run bench`: runtime benchmarks, each printed against a baseline measured in the same run on the
// same machine, and written to BENCHMARKS.md. Each group in bench/groups/ runs in its own process, so
// none is measured in a process that an earlier one grew or warmed; rows keep the order below.
//   --only=P8,S1   run just these (BENCHMARKS.md is then left alone)
//   --quick        10% of the iterations
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { NOTES_HEADING, benchmarksMarkdown } from "./lib/report.js";

/** Each group's file under bench/groups/ and the ids it reports, in BENCHMARKS.md order. */
const groups = [
  ["cluster", ["P8"]],
  ["messaging", ["P2", "P3", "P4"]],
  ["observability", ["O1"]],
  ["cold-start", ["P6"]],
  ["scale", ["P7"]],
  ["simulated", ["S2"]],
  ["failure", ["R1"]],
  ["namespace", ["A1", "A2"]],
  ["tasks", ["P1", "P1-latency", "P5"]],
  ["tcp", ["T1", "T2"]],
  ["data", ["D1", "D2", "D4", "D5"]],
  ["pipeline", ["D7"]],
  ["objects", ["H1", "H2", "H3", "H4"]],
  ["ownership", ["H5"]],
  ["queue", ["Q1", "Q2"]],
  ["slurm", ["S1", "P8"]],
  ["netns", ["N1", "N2"]],
  ["xhost", ["X1"]],
  ["collective", ["D3", "D6"]],
  ["dashboard", ["O2"]],
  ["training", ["A3"]],
];

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const only = args
  .find((a) => a.startsWith("--only="))
  ?.slice(7)
  .split(",");
const known = new Set(groups.flatMap(([, ids]) => ids));
const unknown = only?.filter((id) => !known.has(id)) ?? [];
if (unknown.length) {
  console.error(`--only: no benchmark is called ${unknown.join(", ")}; the ids are ${[...known].join(", ")}`);
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), "fray-bench-results-"));
const rows = [];
const failed = [];
try {
  for (const [name, ids] of groups) {
    if (only && !ids.some((id) => only.includes(id))) continue;
    const file = fileURLToPath(new URL(`./groups/${name}.js`, import.meta.url));
    const results = join(dir, `${name}.jsonl`);
    // --expose-gc lets P7's probe collect before it measures the heap; worker processes inherit it.
    const execArgv = [...new Set([...process.execArgv, "--expose-gc"])];
    const { status, signal } = spawnSync(process.execPath, [...execArgv, file, ...args, `--results=${results}`], { stdio: "inherit" });
    if (status !== 0) failed.push(`${name} (${signal ?? `exit code ${status}`})`);
    if (existsSync(results))
      rows.push(
        ...readFileSync(results, "utf8")
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line)),
      );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

if (failed.length) {
  console.error(`failed: ${failed.join(", ")}; BENCHMARKS.md left as it was`);
  process.exitCode = 1;
} else if (only) {
  console.log("--only: BENCHMARKS.md left as it was");
} else {
  const file = fileURLToPath(new URL("../BENCHMARKS.md", import.meta.url));
  const old = existsSync(file) ? readFileSync(file, "utf8") : "";
  const notes = old.includes(NOTES_HEADING) ? old.slice(old.indexOf(NOTES_HEADING)) : "";
  writeFileSync(file, benchmarksMarkdown(rows, { quick, commit: measuredCommit(), notes }));
  console.log("wrote BENCHMARKS.md");
}

/** The commit this run measured, as BENCHMARKS.md names it: the short hash, and whether the tree had changes on top. */
function measuredCommit() {
  const git = (...args) => spawnSync("git", args, { cwd: fileURLToPath(new URL("..", import.meta.url)), encoding: "utf8" });
  const head = git("rev-parse", "--short", "HEAD");
  if (head.status !== 0) return "unknown (not a git checkout)";
  const dirty = git("status", "--porcelain", "--untracked-files=no").stdout.trim() !== "";
  return `${head.stdout.trim()}${dirty ? " with uncommitted changes" : ""}`;
}
