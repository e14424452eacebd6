// Folds identical lines from many ranks into one (Monarch's
// aggregate_window_sec): the lines that arrive within a window are held, and
// each distinct text is printed once at the window's end, with how many times
// it came and from which ranks: `[64 ranks: workers=0..63] epoch done (×64)`.
import { taggedLine, type OutputStream } from "./log-origin.ts";

interface Held {
  readonly stream: OutputStream;
  readonly text: string;
  readonly tags: Set<string>;
  count: number;
}

export class LogAggregator {
  #held = new Map<string, Held>();
  #timer: NodeJS.Timeout | null = null;

  constructor(private readonly write: (stream: OutputStream, line: string) => void) {}

  add(stream: OutputStream, tag: string, text: string, windowMs: number): void {
    const key = `${stream}\u0000${text}`;
    const held = this.#held.get(key);
    if (held) {
      held.tags.add(tag);
      held.count++;
    } else this.#held.set(key, { stream, text, tags: new Set([tag]), count: 1 });
    if (!this.#timer) {
      this.#timer = setTimeout(() => this.flush(), windowMs);
      this.#timer.unref(); // held lines are printed at exit too
    }
  }

  /** Prints every held line now, in the order their texts first came. */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const held = [...this.#held.values()];
    this.#held.clear();
    for (const { stream, text, tags, count } of held) this.write(stream, folded(text, [...tags], count));
  }
}

/** One line for `text` that came `count` times from the ranks tagged `tags`. */
export function folded(text: string, tags: readonly string[], count: number): string {
  const times = count > 1 ? ` (×${count})` : "";
  if (tags.length === 1) return taggedLine(tags[0], text) + times;
  return `[${tags.length} ranks: ${describeRanks(tags)}] ${text}${times}`;
}

/**
 * The ranks of `tags` in short: "trainers host=0..1 gpus=0..3" when they are
 * every combination of their coordinates, else the tags listed (the first few).
 */
export function describeRanks(tags: readonly string[]): string {
  const parsed = tags.map(parseTag);
  const { name, labels } = parsed[0];
  const same = parsed.every((p) => p.name === name && p.labels.join(" ") === labels.join(" "));
  if (same && labels.length > 0) {
    const values = labels.map((_, d) => [...new Set(parsed.map((p) => p.coords[d]))].sort((a, b) => a - b));
    if (values.reduce((n, v) => n * v.length, 1) === tags.length) {
      return [...(name ? [name] : []), ...labels.map((label, d) => `${label}=${ranges(values[d])}`)].join(" ");
    }
  }
  const shown = tags.slice(0, 8).join(", ");
  return tags.length > 8 ? `${shown}, …` : shown;
}

function parseTag(tag: string): { name: string; labels: string[]; coords: number[] } {
  const names: string[] = [];
  const labels: string[] = [];
  const coords: number[] = [];
  for (const word of tag.split(" ")) {
    const eq = word.indexOf("=");
    const n = Number(word.slice(eq + 1));
    if (eq > 0 && Number.isInteger(n)) {
      labels.push(word.slice(0, eq));
      coords.push(n);
    } else names.push(word);
  }
  return { name: names.join(" "), labels, coords };
}

/** Sorted integers as runs: [0,1,2,3,5] → "0..3,5". */
function ranges(values: readonly number[]): string {
  const runs: string[] = [];
  for (let i = 0; i < values.length;) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === values[j] + 1) j++;
    runs.push(j > i ? `${values[i]}..${values[j]}` : String(values[i]));
    i = j + 1;
  }
  return runs.join(",");
}
