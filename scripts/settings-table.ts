// Prints the Variables section of docs/settings.md from the declarations (each layer's settings file:
// src/runtime/base/settings.ts, src/<layer>/settings.ts); with --write, puts it into docs/settings.md in place of the old one.
//   npm run settings-table [-- --write]
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { declaredSettings, isNumberSetting, shownDefault, shownDoc, type Setting } from "../src/runtime/base/setting-registry.ts";
// Each layer declares its settings in its own file, registered when loaded: the runtime's (loaded by these), then each above it.
import "../src/mesh/settings.ts";
import "../src/job/base/settings.ts";
import "../src/cluster/settings.ts";
import "../src/launchers/settings.ts";

export const SETTINGS_PAGE = fileURLToPath(new URL("../docs/settings.md", import.meta.url));
export const HEADING = "## Variables";

/** One table row: `| \`FRAY_X\` | default | doc |`. */
export function settingRow(setting: Setting): string {
  return `| \`${setting.env}\` | ${shownDefault(setting)} | ${shownDoc(setting)} |`;
}

/** The whole Variables section, heading included. */
export function settingsSection(): string {
  const all = declaredSettings();
  const table = (head: string, rows: Setting[]) => [`| variable | default | ${head} |`, "| --- | --- | --- |", ...rows.map(settingRow)];
  return [
    HEADING,
    "",
    "Every timeout and limit is one setting with an environment override (milliseconds, bytes, or a",
    "count); an empty variable counts as unset. Each is declared once, in its layer's `settings.ts`, which",
    "these tables are printed from (`npm run settings-table -- --write`).",
    "",
    ...table("what it bounds", all.filter(isNumberSetting)),
    "",
    "More variables name things rather than bound them; those set by fray are set in the processes it starts.",
    "",
    ...table(
      "what it is",
      all.filter((s) => !isNumberSetting(s)),
    ),
    "",
  ].join("\n");
}

/** The settings page with its Variables section (up to the next `## ` heading) replaced by `section`. */
export function withSection(page: string, section: string): string {
  const start = page.indexOf(`\n${HEADING}\n`);
  if (start < 0) throw new Error(`docs/settings.md has no "${HEADING}" section`);
  const end = page.indexOf("\n## ", start + 1);
  return `${page.slice(0, start + 1)}${section}${end < 0 ? "" : page.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--write")) writeFileSync(SETTINGS_PAGE, withSection(readFileSync(SETTINGS_PAGE, "utf8"), settingsSection()));
  else process.stdout.write(settingsSection());
}
