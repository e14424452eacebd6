// The settings each layer declares (src/runtime/base/settings.ts, src/<layer>/settings.ts) are the one declaration of every
// FRAY_* variable: docs/settings.md's tables must say the same, row by row;
// no source file names or reads a variable it does not declare; `config`
// reads each with errors that name the setting, its unit and an example.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { config, readSetting, settingName, settingNow } from "../src/runtime/base/config.ts";
import { declaredSettings, isNumberSetting, shownDefault, shownDoc, type Setting } from "../src/runtime/base/setting-registry.ts";
import { HEADING, SETTINGS_PAGE, settingsSection, withSection } from "../scripts/settings-table.ts"; // which loads every layer's settings

const SRC = fileURLToPath(new URL("../src", import.meta.url));
const declared = new Map<string, Setting>(declaredSettings().map((s: Setting) => [s.env, s]));

/** The rows of every table in the settings page's Variables section: name → [default, text]. */
function pageRows(page: string): Map<string, [string, string]> {
  const start = page.indexOf(`\n${HEADING}\n`);
  assert.ok(start >= 0, `docs/settings.md has no "${HEADING}" section`);
  const end = page.indexOf("\n## ", start + 1);
  const rows = new Map<string, [string, string]>();
  for (const line of page.slice(start, end < 0 ? undefined : end).split("\n")) {
    const cells = /^\|\s*`(FRAY_[A-Z0-9_]+)`\s*\|(.*)\|(.*)\|\s*$/.exec(line);
    if (cells) rows.set(cells[1], [cells[2].trim(), cells[3].trim()]);
  }
  return rows;
}

/** Every difference between the settings page's rows and the declaration, one line each. */
function differences(page: string): string[] {
  const rows = pageRows(page);
  const found: string[] = [];
  for (const [name, setting] of declared) {
    const row = rows.get(name);
    if (!row) {
      found.push(`${name}: declared, but docs/settings.md's tables have no row for it`);
      continue;
    }
    if (row[0] !== shownDefault(setting)) found.push(`${name}: docs/settings.md's default is "${row[0]}", the declaration's "${shownDefault(setting)}"`);
    if (row[1] !== shownDoc(setting)) found.push(`${name}: docs/settings.md says\n    "${row[1]}"\n  the declaration says\n    "${shownDoc(setting)}"`);
  }
  for (const name of rows.keys()) if (!declared.has(name)) found.push(`${name}: in docs/settings.md's tables, but not declared in any layer's settings.ts`);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Runs `fn` with the environment variable set (or unset), then restores it. */
function withEnv<T>(name: string, value: string | undefined, fn: () => T): T {
  const before = process.env[name];
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  try {
    return fn();
  } finally {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  }
}

describe("settings table", () => {
  it("docs/settings.md's tables match the declaration row by row (name, default, text)", () => {
    const found = differences(readFileSync(SETTINGS_PAGE, "utf8"));
    assert.deepEqual(found, [], `docs/settings.md disagrees with the settings declared; run \`npm run settings-table -- --write\`:\n  ${found.join("\n  ")}`);
  });

  it("the settings page check reports a changed default, a changed text, a missing row and an undeclared row", () => {
    const page = withSection(readFileSync(SETTINGS_PAGE, "utf8"), settingsSection())
      .replace("| `FRAY_CONNECT_TIMEOUT_MS` | 30000 |", "| `FRAY_CONNECT_TIMEOUT_MS` | 20000 |")
      .replace("how long an actor's `cleanup()` may run", "how long an actor's `cleanup()` runs")
      .replace(/^\| `FRAY_AUTH_TIMEOUT_MS` .*\n/m, "")
      .replace(/^(\| `FRAY_TOKEN` .*\n)/m, "$1| `FRAY_MADE_UP_MS` | 1 | nothing |\n");
    const found = differences(page);
    assert.equal(found.length, 4, found.join("\n"));
    assert.match(found.join("\n"), /FRAY_CONNECT_TIMEOUT_MS: docs\/settings.md's default is "20000", the declaration's "30000"/);
    assert.match(found.join("\n"), /FRAY_CLEANUP_TIMEOUT_MS: docs\/settings.md says/);
    assert.match(found.join("\n"), /FRAY_AUTH_TIMEOUT_MS: declared, but docs\/settings.md's tables have no row/);
    assert.match(found.join("\n"), /FRAY_MADE_UP_MS: in docs\/settings.md's tables, but not declared/);
  });

  it("every FRAY_* name in src/, README, CONTRIBUTING and docs/ is declared, and only config.ts reads FRAY_* variables", () => {
    const unknown = new Set<string>();
    const readers: string[] = [];
    const docs = fileURLToPath(new URL("../docs", import.meta.url));
    const pages = [
      ...["../README.md", "../CONTRIBUTING.md"].map((page) => fileURLToPath(new URL(page, import.meta.url))),
      ...readdirSync(docs)
        .filter((name) => name.endsWith(".md"))
        .map((name) => join(docs, name)),
    ];
    for (const file of [...pages, ...sourceFiles(SRC)]) {
      const text = readFileSync(file, "utf8");
      for (const [name] of text.matchAll(/FRAY_[A-Z0-9_]*[A-Z0-9]/g)) if (!declared.has(name) && name !== "FRAY_TLS") unknown.add(`${name} (${file})`);
      if (!pages.includes(file) && !file.endsWith("config.ts") && /process\.env(\.FRAY_|\[\s*["'`]FRAY_)/.test(text)) readers.push(file);
    }
    assert.deepEqual([...unknown], [], "declare these in their layer's settings.ts");
    assert.deepEqual(readers, [], "read FRAY_* variables through config.<name>");
  });
});

describe("config", () => {
  it("each setting reads its default when its variable is unset or empty, and the variable when set", () => {
    for (const setting of declaredSettings()) {
      const key = setting.env;
      const fallback =
        setting.default !== undefined && typeof setting.default === "string" && setting.default.startsWith("~/")
          ? join(homedir(), setting.default.slice(2))
          : setting.default;
      assert.equal(
        withEnv(setting.env, undefined, () => readSetting(setting)),
        fallback,
        key,
      );
      assert.equal(
        withEnv(setting.env, "", () => readSetting(setting)),
        fallback,
        key,
      );
      const number = isNumberSetting(setting) ? Math.max(7, setting.min ?? 0) : undefined; // one it allows
      assert.equal(
        withEnv(setting.env, number === undefined ? "given" : String(number), () => readSetting(setting)),
        number ?? "given",
        key,
      );
    }
  });

  it("a bad value is rejected with an error naming the setting, its unit and an example", () => {
    assert.throws(() => withEnv("FRAY_MAX_FRAME_BYTES", "lots", () => config.maxFrameBytes), {
      name: "RangeError",
      message: 'FRAY_MAX_FRAME_BYTES="lots" is not a non-negative number of bytes; unset it or give e.g. FRAY_MAX_FRAME_BYTES=1073741824',
    });
    assert.throws(() => withEnv("FRAY_SPAWN_WAIT_MS", "-5", () => config.spawnWaitMs), {
      name: "RangeError",
      message: 'FRAY_SPAWN_WAIT_MS="-5" is not a non-negative number of milliseconds; unset it or give e.g. FRAY_SPAWN_WAIT_MS=30000',
    });
    assert.throws(
      () => withEnv("FRAY_MAX_FRAME_BYTES", String(2 ** 33), () => config.maxFrameBytes),
      /FRAY_MAX_FRAME_BYTES=8589934592 is more than the most allowed, 4294967295 bytes; give at most that, e.g. FRAY_MAX_FRAME_BYTES=1073741824/,
    );
  });

  it("messages name settings from the table: settingName and settingNow", () => {
    assert.equal(settingName("spawnWaitMs"), "FRAY_SPAWN_WAIT_MS");
    assert.equal(
      withEnv("FRAY_HEARTBEAT_TIMEOUT_MS", "1234", () => settingNow("heartbeatTimeoutMs")),
      "FRAY_HEARTBEAT_TIMEOUT_MS=1234",
    );
  });
});
