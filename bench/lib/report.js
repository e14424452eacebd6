// The row every benchmark reports, as printed while the bench runs and as written to BENCHMARKS.md.
import { availableParallelism, cpus, release, totalmem, type } from "node:os";

/** A goal column that says the row has none: "(no goal…)", "(report)", "—…". */
const NO_GOAL = /^(\(no goal|\(report\)|—)/;

/**
 * One result: what was measured, against which baseline measured in the same run, and the goal (`met` null: a
 * row with no goal of its own). A row whose goal says it has none is never "met", whatever `met` says.
 */
export function row(id, what, value, unit, baseline, ratio, goal, met) {
  return { id, what, value, unit, baseline, ratio, goal, met: NO_GOAL.test(goal) ? null : met };
}

/** The machine a run measured, as BENCHMARKS.md names it at the top: CPU, cores, memory, kernel, Node. */
export function machineLine() {
  const cpu = cpus()[0]?.model.trim() || "unknown CPU";
  return `${cpu}, ${availableParallelism()} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${type()} ${release()}, Node ${process.version}`;
}

/** A row's goal as met or not; null: a row with no goal of its own. */
const verdict = (met, yes, no) => (met === null ? "—" : met ? yes : no);

export function consoleLine(r) {
  return (
    `${r.id.padEnd(4)} ${r.what}: ${r.value} ` +
    `${r.unit}${r.baseline ? ` | baseline ${r.baseline}` : ""}${r.ratio ? ` | ratio ${r.ratio}` : ""} | goal ${r.goal} ${verdict(r.met, "met", "MISSED")}`
  );
}

/** The sections of the rows that make tables of their own (tableRow() in group.js), each after the main table. */
function ownTables(rows) {
  const tables = new Map();
  for (const r of rows) if (r.table) tables.set(r.table, [...(tables.get(r.table) ?? [r.columns]), r.cells]);
  return [...tables].flatMap(([title, [columns, ...cells]]) => [
    `## ${title}`,
    "",
    `| ${columns.join(" | ")} |`,
    `| ${columns.map(() => "---").join(" | ")} |`,
    ...cells.map((c) => `| ${c.join(" | ")} |`),
    "",
  ]);
}

/** The heading of BENCHMARKS.md's hand-kept section, which a new run carries over as it was. */
export const NOTES_HEADING = "## Notes from earlier runs";

/**
 * The text of BENCHMARKS.md for `rows`, in the order given, naming at the top the commit measured (`commit`: its
 * hash, with "with uncommitted changes" when the tree was dirty) and the machine (`machine`, machineLine()'s by
 * default), and ending with `notes`, the old file's notes section.
 */
export function benchmarksMarkdown(allRows, { quick, commit, machine = machineLine(), notes }) {
  const rows = allRows.filter((r) => !r.table);
  return [
    "# Benchmarks",
    "",
    `Commit: ${commit}`,
    "",
    `Machine: ${machine}`,
    "",
    `Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}${quick ? " (quick mode: 10% of the iterations)" : ""}.`,
    "Each baseline is measured in the same run on the same machine; each group of benchmarks runs in a",
    "process of its own, and round trips alternate with their raw baseline in ten blocks. On this VM a",
    "round trip's median moves between runs (~20 µs to ~70 µs for P2, for bare node sockets too), so",
    "compare ratios over more than one run.",
    "",
    "| id | what | measured | baseline | ratio | goal | met |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map(
      (r) => `| ${r.id} | ${r.what} | ${r.value} ${r.unit} | ${r.baseline || "—"} | ${r.ratio || "—"} | ${r.goal} | ${verdict(r.met, "yes", "**no**")} |`,
    ),
    "",
    ...ownTables(allRows),
    ...(notes ? [notes.trimEnd(), ""] : []),
  ].join("\n");
}
