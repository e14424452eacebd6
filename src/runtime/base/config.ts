// The settings in force: a layer declares its settings (`declareSettings`) and reads each as
// `config.<name>`, from its environment variable or its default. Read when used, so a process can
// change them before it starts workers (which inherit the environment).
import { homedir } from "node:os";
import { join } from "node:path";
import { isNumberSetting, registerSettings, type NumberSetting, type Setting, type SettingTable, type TextSetting } from "./setting-registry.ts";
import { SETTINGS } from "./settings.ts";

type ValueOf<S> = S extends NumberSetting ? number : S extends { readonly default: string } ? string : string | undefined;
type NumberKey<T extends SettingTable> = { [K in keyof T & string]: T[K] extends NumberSetting ? K : never }[keyof T & string];

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

/** A setting's value now: its variable if set and not empty, else its default. */
export function readSetting(setting: Setting): number | string | undefined {
  return isNumberSetting(setting) ? readNumber(setting) : readText(setting);
}

/** A layer's settings, and those of the layers below it that it reads, as its code reads them. */
export interface Settings<T extends SettingTable> {
  readonly table: T;
  /** Every setting's current value, by its name in the table: `config.connectTimeoutMs`. */
  readonly config: { readonly [K in keyof T]: ValueOf<T[K]> };
  /** A setting's environment variable, for messages: "FRAY_SPAWN_WAIT_MS". */
  settingName(key: keyof T & string): string;
  /** A setting with its value now, for messages: "FRAY_HEARTBEAT_TIMEOUT_MS=30000". */
  settingNow(key: keyof T & string): string;
  /** A timeout a caller's option sets, else the setting: its ms, and how an error names what bounds it. */
  optionOrSetting(optionName: string, option: number | undefined, key: NumberKey<T>): { ms: number; bound: string };
}

/**
 * Declares a layer's settings (registered, so the settings table lists them), read together with
 * those of `below`, the settings of the layers under it that its code reads too.
 */
export function declareSettings<T extends SettingTable, B extends SettingTable = Record<never, Setting>>(table: T, below?: Settings<B>): Settings<T & B> {
  for (const key of Object.keys(table)) if (below && key in below.table) throw new Error(`the setting name "${key}" is taken by a layer below`);
  registerSettings(table);
  const all = { ...below?.table, ...table } as T & B;
  const config = Object.defineProperties(
    {},
    Object.fromEntries(Object.entries(all).map(([key, setting]) => [key, { get: () => readSetting(setting), enumerable: true }])),
  ) as Settings<T & B>["config"];
  const settingNow = (key: keyof (T & B) & string) => `${all[key].env}=${config[key] ?? ""}`;
  return {
    table: all,
    config,
    settingName: (key) => all[key].env,
    settingNow,
    optionOrSetting: (optionName, option, key) =>
      option === undefined ? { ms: config[key] as number, bound: settingNow(key) } : { ms: option, bound: `the ${optionName} option (${option})` },
  };
}

/** The runtime's settings: the layers above declare theirs on top of these. */
export const runtimeSettings = declareSettings(SETTINGS);
export const { config, optionOrSetting, settingName, settingNow } = runtimeSettings;
