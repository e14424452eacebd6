// What test/docs.test.ts reads out of the Markdown files: their fenced code blocks (with the
// <!-- ts-preamble … --> or <!-- ts-unchecked: … --> comment above one), their headings' anchors as
// GitHub makes them, and their links — outside code, where a `[x](y)` is not a link.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export interface CodeBlock {
  /** The fence's info string: `ts`, `sh`, … */
  readonly lang: string;
  /** 1-based line of the block's first line of code (the one after the fence). */
  readonly line: number;
  /** The code, without the fence and without the indentation the fence had. */
  readonly code: string;
  /** The HTML comment right above the fence (blank lines between allowed), without `<!--` and `-->`. */
  readonly comment: string | undefined;
}

export interface Link {
  readonly line: number;
  readonly target: string;
}

const FENCE = /^( *)(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;

/** The fenced code blocks of `text`, and `text` with each block's lines (fences included) blanked. */
export function codeBlocks(text: string): { blocks: CodeBlock[]; prose: string } {
  const lines = text.split("\n");
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length; i++) {
      const close = /^ *(`{3,}|~{3,})\s*$/.exec(lines[i]);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) break;
      body.push(lines[i].startsWith(indent) ? lines[i].slice(indent.length) : lines[i].trimStart());
    }
    blocks.push({ lang, line: start + 2, code: body.join("\n"), comment: commentAbove(lines, start) });
    for (let j = start; j <= Math.min(i, lines.length - 1); j++) lines[j] = "";
  }
  return { blocks, prose: lines.join("\n") };
}

/** The text of an HTML comment that ends on the last non-blank line before line `index`. */
function commentAbove(lines: string[], index: number): string | undefined {
  let end = index - 1;
  while (end >= 0 && lines[end].trim() === "") end--;
  if (end < 0 || !lines[end].trimEnd().endsWith("-->")) return undefined;
  let start = end;
  while (start >= 0 && !lines[start].includes("<!--")) start--;
  if (start < 0) return undefined;
  const text = lines.slice(start, end + 1).join("\n");
  return text.slice(text.indexOf("<!--") + 4, text.lastIndexOf("-->")).trim();
}

/** GitHub's anchor of a heading: lower case, punctuation dropped (`_` and `-` kept), spaces as `-`. */
export function slug(heading: string): string {
  const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of every heading of a Markdown file's prose (a repeated one gets -1, -2, … as on GitHub). */
export function anchors(prose: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of prose.matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** The links of a Markdown file's prose: inline `[text](target)` and `![alt](target)`, and `[ref]: target` definitions. */
export function links(prose: string): Link[] {
  const found: Link[] = [];
  prose.split("\n").forEach((raw, index) => {
    const line = raw.replace(/(`+)[^`]*?\1/g, (span) => " ".repeat(span.length)); // no links inside code spans
    for (const [, target] of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ line: index + 1, target });
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (definition) found.push({ line: index + 1, target: definition[1] });
  });
  return found;
}

/** Every `.md` file under `dir`, recursively, but for the folders named in `skip`. */
export function markdownFiles(dir: string, skip: readonly string[] = []): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return skip.includes(path) ? [] : markdownFiles(path, skip);
      return name.endsWith(".md") ? [path] : [];
    });
}
