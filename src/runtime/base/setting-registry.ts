// What a setting is, and the registry of every setting declared: each layer declares its own in a
// file of its own (src/<layer>/settings.ts; the runtime's in settings.ts) through `declareSettings`
// (config.ts), once: its environment variable, its default, its kind (a number of milliseconds, bytes
// or things, or a text), its bounds and what it bounds or names. `config` reads them, messages take
// their names from them, and the settings table is printed from them all (`npm run settings-table`;
// test/settings.test.ts checks it). In the spirit of hyperactor's config.rs `declare_attrs!`.

/** A number of milliseconds, bytes or things with a default; an empty variable counts as unset. */
export interface NumberSetting {
  readonly env: `FRAY_${string}`;
  /** "count": a whole number of things (procs, …). */
  readonly kind: "ms" | "bytes" | "count";
  readonly default: number;
  /** The smallest and largest values allowed, if there are such. */
  readonly min?: number;
  readonly max?: number;
  /** What it bounds, as the settings table says it. */
  readonly doc: string;
}

/**
 * A text: a name, a path or a secret. "path" defaults may start with `~/` (the
 * home directory); "given" ones fray sets itself for the processes it starts.
 */
export interface TextSetting {
  readonly env: `FRAY_${string}`;
  readonly kind: "text" | "path" | "given";
  /** The default; none when unset means "not given" (or, for `shown`, something computed). */
  readonly default?: string;
  /** How the settings table shows a default that is not a plain value. */
  readonly shown?: string;
  readonly doc: string;
}

export type Setting = NumberSetting | TextSetting;

/** A layer's settings by the name its code reads them under: `config.<name>`. */
export type SettingTable = Readonly<Record<string, Setting>>;

export function isNumberSetting(setting: Setting): setting is NumberSetting {
  return setting.kind === "ms" || setting.kind === "bytes" || setting.kind === "count";
}

/** A number of milliseconds: the commonest setting, declared in one line. */
export const ms = (env: `FRAY_${string}`, value: number, doc: string): NumberSetting => ({ env, kind: "ms", default: value, doc });

/** Every setting declared in this process, in the order declared (the runtime's first: every layer's file imports it). */
const DECLARED = new Map<string, Setting>();

/** Adds a layer's settings to the registry; a variable may be declared once only (a module loaded twice declares the same again). */
export function registerSettings(table: SettingTable): void {
  for (const setting of Object.values(table)) {
    const had = DECLARED.get(setting.env);
    if (had && JSON.stringify(had) !== JSON.stringify(setting)) throw new Error(`${setting.env} is declared twice: declare each setting in one layer`);
    DECLARED.set(setting.env, setting);
  }
}

/** Every setting declared so far (a layer's are declared when its settings file is loaded). */
export function declaredSettings(): readonly Setting[] {
  return [...DECLARED.values()];
}

/** The default as the settings table shows it: "30000", "1073741824 (1 GiB)", "`local`", "(set by fray)". */
export function shownDefault(setting: Setting): string {
  if (isNumberSetting(setting)) {
    const gib = setting.default / 2 ** 30;
    return setting.kind === "bytes" && gib > 0 && Number.isInteger(gib) ? `${setting.default} (${gib} GiB)` : String(setting.default);
  }
  if (setting.kind === "given") return "(set by fray)";
  return setting.shown ?? (setting.default === undefined ? "(none)" : `\`${setting.default}\``);
}

/** What the settings table says a setting bounds or names, with its upper limit. */
export function shownDoc(setting: Setting): string {
  if (!isNumberSetting(setting)) return setting.doc;
  const bounds = [setting.min !== undefined && `at least ${setting.min}`, setting.max !== undefined && `at most ${setting.max}`].filter(Boolean);
  return bounds.length ? `${setting.doc} (${bounds.join(", ")})` : setting.doc;
}
