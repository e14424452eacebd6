// Where a worker's output line came from: a tag like "trainers host=1 gpus=3"
// (the ProcMesh's name, if it has one, and the proc's coordinates in it). A
// worker marks each line its actors write with their tag, in-band, so the
// line keeps its place among the process's other output on the same pipe;
// unmarked lines get the tag of the whole process from its parent.

/** Starts a marked line: ASCII record separator, which text output does not contain. */
const MARK = "\u001e";
/** Ends the tag of a marked line: ASCII unit separator. */
const SEP = "\u001f";

/** 1: stdout, 2: stderr. */
export type OutputStream = 1 | 2;

/** One line of a worker's output: its origin tag and its text (no newline). */
export type OutputLine = readonly [tag: string, text: string];

/** "trainers host=1 gpus=3"; without a name, the coordinates alone; "" when there are neither. */
export function originTag(name: string | undefined, labels: readonly string[], coords: readonly number[]): string {
  const parts = labels.map((label, i) => `${label}=${coords[i]}`);
  if (name) parts.unshift(name);
  return parts.join(" ");
}

/** The line as a worker writes it when `tag` is known to it. */
export function markLine(tag: string, text: string): string {
  return `${MARK}${tag}${SEP}${text}`;
}

/** A line read from a worker: its own tag if it is marked, else `fallback`. */
export function unmarkLine(line: string, fallback: string): OutputLine {
  if (!line.startsWith(MARK)) return [fallback, line];
  const sep = line.indexOf(SEP);
  return sep < 0 ? [fallback, line.slice(1)] : [line.slice(1, sep), line.slice(sep + 1)];
}

/** The line as the client prints it: `[tag] text`, or the text alone for a tag-less proc. */
export function taggedLine(tag: string, text: string): string {
  return tag ? `[${tag}] ${text}` : text;
}
