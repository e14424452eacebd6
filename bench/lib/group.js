// What every benchmark group (bench/groups/*.js) shares: its command line, a scratch directory, and report().
// The driver (bench/run.js) starts each group in its own process with
//   --results=FILE   one JSON row per line is appended to FILE (the driver collects them)
//   --only=P2,P3     run just these ids (absent: all of the group's)
//   --quick          10% of the iterations
// A group also runs by itself: `node --expose-gc bench/groups/messaging.js --only=P2` prints its rows.
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consoleLine, row } from "./report.js";

const flag = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

export const quick = process.argv.includes("--quick");
export const scale = quick ? 0.1 : 1;
const only = flag("only")?.split(",");
const results = flag("results");

/** Whether any of `ids` was asked for. */
export const want = (...ids) => !only || ids.some((id) => only.includes(id));

/** This process's scratch directory (sockets, queues, cluster state), removed when it exits. */
export const scratch = mkdtempSync(join(tmpdir(), "fray-bench-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));

/** Prints one result and hands it to the driver: see row() in report.js for the arguments. */
export function report(...args) {
  const r = row(...args);
  console.log(consoleLine(r));
  if (results) appendFileSync(results, JSON.stringify(r) + "\n");
}

/**
 * Prints one row of a table of its own (BENCHMARKS.md gives it a section after the main table): `table` names
 * the section, `columns` its header, `cells` this row.
 */
export function tableRow(id, table, columns, cells) {
  const r = { id, table, columns, cells };
  console.log(`${id.padEnd(4)} ${cells.join(" | ")}`);
  if (results) appendFileSync(results, JSON.stringify(r) + "\n");
}

/** Says why benchmarks that were asked for did not run (a missing tool or privilege). */
export function skip(why) {
  console.log(`skipped: ${why}`);
}
