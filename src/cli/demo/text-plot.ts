// A small plain-text line plot for the terminal (the loss curve of `fray demo`).

/** Plots `values` (one per x, in order) on `height` rows × at most `width` columns, with the y range on the left. */
export function textPlot(values: readonly number[], { width = 60, height = 10 } = {}): string {
  if (values.length === 0) return "(nothing to plot)";
  const columns = Math.min(width, values.length);
  // Each column shows the mean of the values that fall in it.
  const points: number[] = [];
  for (let c = 0; c < columns; c++) {
    const from = Math.floor((c * values.length) / columns);
    const to = Math.max(from + 1, Math.floor(((c + 1) * values.length) / columns));
    let sum = 0;
    for (let i = from; i < to; i++) sum += values[i];
    points.push(sum / (to - from));
  }
  const top = Math.max(...points);
  const bottom = Math.min(...points);
  const span = top - bottom || 1;
  const rows: string[][] = Array.from({ length: height }, () => Array<string>(columns).fill(" "));
  points.forEach((v, c) => {
    rows[height - 1 - Math.round(((v - bottom) / span) * (height - 1))][c] = "•";
  });
  const label = (v: number) => v.toFixed(3).padStart(7);
  return rows
    .map((row, r) => `${r === 0 ? label(top) : r === height - 1 ? label(bottom) : " ".repeat(7)} │${row.join("")}`)
    .concat(
      `${" ".repeat(7)} └${"─".repeat(columns)}`,
      `${" ".repeat(9)}step 1${" ".repeat(Math.max(1, columns - 6 - String(values.length).length - 5))}step ${values.length}`,
    )
    .join("\n");
}
