// The settings in force: `config.<name>` reads the setting SETTINGS declares
// under that name (settings.ts), from its environment variable or its default.
// Read when used, so a process can change them before it starts workers
// (which inherit the environment).
import { homedir } from "node:os";
import { join } from "node:path";
import { isNumberSetting, SETTINGS, type NumberSetting, type Setting, type SettingKey, type TextSetting } from "./settings.ts";

type Settings = typeof SETTINGS;
type ValueOf<S> = S extends NumberSetting ? number : S extends { readonly default: string } ? string : string | undefined;

const UNITS: Record<NumberSetting["kind"], string> = { ms: "milliseconds", bytes: "bytes", count: "" };

function readNumber(setting: NumberSetting): number {
  const { env: name, default: fallback, min, max } = setting;
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (setting.kind === "count" ? !Number.isInteger(value) || value < 0 : !Number.isFinite(value) || value < 0) {
    const what = setting.kind === "count" ? "a whole number" : `a non-negative number of ${UNITS[setting.kind]}`;
    throw new RangeError(`${name}=${JSON.stringify(raw)} is not ${what}; unset it or give e.g. ${name}=${fallback}`);
  }
  if (min !== undefined && value < min) {
    throw new RangeError(`${name}=${value} is less than the least allowed, ${min}; give at least that, e.g. ${name}=${fallback}`);
  }
  if (max !== undefined && value > max) {
    throw new RangeError(
      `${name}=${value} is more than the most allowed, ${`${max} ${UNITS[setting.kind]}`.trim()}; give at most that, e.g. ${name}=${fallback}`,
    );
  }
  return value;
}

function readText(setting: TextSetting): string | undefined {
  const raw = process.env[setting.env];
  if (raw !== undefined && raw !== "") return raw;
  if (setting.kind === "path" && setting.default?.startsWith("~/")) return join(homedir(), setting.default.slice(2));
  return setting.default;
}

function read(setting: Setting): number | string | undefined {
  return isNumberSetting(setting) ? readNumber(setting) : readText(setting);
}

/** Every setting's current value, by its name in SETTINGS: `config.connectTimeoutMs`. */
export const config = Object.defineProperties(
  {},
  Object.fromEntries(Object.entries(SETTINGS).map(([key, setting]) => [key, { get: () => read(setting), enumerable: true }])),
) as { readonly [K in SettingKey]: ValueOf<Settings[K]> };

/** A setting's environment variable, for messages: "FRAY_SPAWN_WAIT_MS". */
export function settingName(key: SettingKey): string {
  return SETTINGS[key].env;
}

/** A setting with its value now, for messages: "FRAY_HEARTBEAT_TIMEOUT_MS=30000". */
export function settingNow(key: SettingKey): string {
  return `${SETTINGS[key].env}=${config[key] ?? ""}`;
}

type NumberKey = { [K in SettingKey]: Settings[K] extends NumberSetting ? K : never }[SettingKey];

/** A timeout a caller's option sets, else the setting: its ms, and how an error names what bounds it. */
export function optionOrSetting(optionName: string, option: number | undefined, key: NumberKey): { ms: number; bound: string } {
  return option === undefined ? { ms: config[key], bound: settingNow(key) } : { ms: option, bound: `the ${optionName} option (${option})` };
}
