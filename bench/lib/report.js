// The row every benchmark reports, as printed while the bench runs and as written to BENCHMARKS.md.
import { availableParallelism } from "node:os";

/** One result: what was measured, against which baseline measured in the same run, and the goal (`met` null: a row with no goal of its own). */
export function row(id, what, value, unit, baseline, ratio, goal, met) {
  return { id, what, value, unit, baseline, ratio, goal, met };
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
 * The text of BENCHMARKS.md for `rows`, in the order given, naming the commit measured (`commit`: its
 * hash, with "and uncommitted changes" when the tree was dirty) and ending with `notes`, the old file's
 * notes section.
 */
export function benchmarksMarkdown(allRows, { quick, commit, notes }) {
  const rows = allRows.filter((r) => !r.table);
  return [
    "# Benchmarks",
    "",
    `Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)} at commit ${commit}: ${availableParallelism()} cores, Node ` +
      `${process.version}${quick ? " (quick mode: 10% of the iterations)" : ""}.`,
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
