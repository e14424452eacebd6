// The shape of the source tree, as DESIGN.md and issue 13 set it: layers import
// only lower layers, no two modules need each other at run time (value-import
// cycles make load order matter and hide which concept owns what), and every
// file can be read in one sitting.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { it } from "node:test";

const root = fileURLToPath(new URL("..", import.meta.url));
const src = join(root, "src");
const dist = join(root, "dist");
const MAX_LINES = 400;

/** Layers bottom up; a folder may import its own files and those of lower ranks. cluster and queue sit side by side. */
const RANK: Record<string, number> = { wire: 1, runtime: 2, mesh: 3, job: 4, cluster: 5, queue: 5, launchers: 6, cli: 7 };

const files = (dir: string, ending: string) =>
  readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(ending) && !f.endsWith(".d.ts")).map((f) => join(dir, f));

/** Relative module specifiers a file imports or re-exports, statically. */
function importsOf(file: string, { valuesOnly }: { valuesOnly: boolean }): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?([^;]*?\s+from\s+)?"(\.[^"]+)"/gms)) {
    if (valuesOnly && m[2]) continue;
    found.push(resolve(dirname(file), m[4]));
  }
  return found;
}

it(`every source file is at most ${MAX_LINES} lines`, () => {
  const long = files(src, ".ts")
    .map((f) => [relative(root, f), readFileSync(f, "utf8").split("\n").length - 1] as const)
    .filter(([, n]) => n > MAX_LINES);
  assert.deepEqual(long, [], "split these by concept");
});

it("layers import only lower layers, and only the CLI goes through the public entry files", () => {
  // src/job.ts, src/mesh.ts, … are the users' entry points; fray/mesh re-exports the launchers, so a
  // lower layer importing it would load every layer above it.
  const wrong: string[] = [];
  for (const file of files(src, ".ts")) {
    const from = relative(src, file).split("/")[0];
    if (!(from in RANK)) continue; // an entry file itself
    for (const target of importsOf(file, { valuesOnly: false })) {
      const to = relative(src, target).split("/")[0];
      const entry = !to.includes("/") && to.endsWith(".ts");
      if (entry ? from !== "cli" : to !== from && !(to in RANK && RANK[to] < RANK[from])) wrong.push(`${relative(root, file)} imports ${relative(root, target)}`);
    }
  }
  assert.deepEqual(wrong, []);
});

it("no value-import cycle among the compiled modules", () => {
  // The compiled JavaScript is the truth: imports used only as types are gone from it.
  const graph = new Map(files(dist, ".js").map((f) => [f, importsOf(f, { valuesOnly: true })]));
  const cycles: string[][] = [];
  // Tarjan's strongly connected components; any of more than one module is a cycle.
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const visit = (v: string) => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) === order.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(relative(dist, w).replace(/\.js$/, ".ts"));
      } while (w !== v);
      if (component.length > 1 || graph.get(v)!.includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!order.has(v)) visit(v);
  assert.deepEqual(cycles, [], "these modules import each other (directly or around a loop); pass the dependency in instead");
});
