// The docs as a reader meets them. `npm run docs`: TypeDoc's HTML API docs, one module per
// entry point of package.json's "exports", from the entry files' module comments and the JSDoc
// under them; any TypeDoc warning fails the build (typedoc.config.mjs), so a type that a public
// signature names but no entry point exports is caught here. The Markdown: every relative link
// and #anchor resolves, every ```ts block of README.md and docs/ type-checks against the package
// (after `npm run build`: "fray" resolves through package.json's exports to dist/, as for a
// user), and docs/fray.md shows every method of a JobContext.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { after, it } from "node:test";
import { anchors, codeBlocks, links, markdownFiles, type CodeBlock } from "./docs-markdown.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));
const out = mkdtempSync(join(tmpdir(), "fray-docs-"));
after(() => rmSync(out, { recursive: true, force: true }));

it("npm run docs builds a page for every entry point, with its module comment and example, and warns of nothing", () => {
  // Without source links: they need a git remote TypeDoc can read, which a clone from a local path lacks (a warning).
  const build = spawnSync("npm", ["run", "docs", "--", "--out", out, "--disableSources"], {
    cwd: repo,
    encoding: "utf8",
    timeout: 300_000,
    killSignal: "SIGKILL",
  });
  const output = `${build.stdout}${build.stderr}`;
  assert.equal(build.status, 0, output);
  assert.doesNotMatch(output, /\[warning\]|\[error\]/, output);

  const { exports } = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { exports: Record<string, unknown> };
  const modules = Object.keys(exports)
    .filter((key) => key !== "./package.json")
    .map((key) => `fray${key.slice(1)}`);
  assert.deepEqual(modules, ["fray", "fray/mesh", "fray/array", "fray/cluster", "fray/queue", "fray/launchers", "fray/dashboard"]);
  for (const name of modules) {
    const page = join(out, "modules", `${name.replace("/", "_")}.html`);
    assert.ok(existsSync(page), `no page for ${name}`);
    const html = readFileSync(page, "utf8");
    assert.match(html, new RegExp(`<title>${name} \\|`), `${name}'s page is titled by its @module name`);
    assert.match(html, new RegExp(`<code>${name}</code>: `), `${name}'s page opens with its module comment`);
    const example = /<div class="tsd-tag-example">([\s\S]*?)<\/pre>/.exec(html);
    assert.ok(example, `${name}'s page shows its @example`);
    assert.ok(example[1].includes(`&quot;${name}&quot;`), `${name}'s example imports it`);
  }
  // The launchers and the dashboard are documented under their own entry points, and only there.
  for (const [page, owner] of [
    ["classes/fray_launchers.ProcessJob.html", "fray/launchers"],
    ["functions/fray_dashboard.startDashboard.html", "fray/dashboard"],
  ]) {
    assert.ok(existsSync(join(out, page)), `${page}: documented under ${owner}`);
  }
  assert.ok(!existsSync(join(out, "classes/fray_mesh.ProcessJob.html")));
  assert.ok(!existsSync(join(out, "functions/fray_cluster.startDashboard.html")));
});

it("docs/fray.md documents every method of JobContext", () => {
  const source = readFileSync(join(repo, "src/job/job-context.ts"), "utf8");
  const body = /export interface JobContext \{([\s\S]*?)\n\}/.exec(source)![1];
  const methods = [...new Set([...body.matchAll(/^ {2}(\w+)[<(]/gm)].map((m) => m[1]))];
  assert.ok(methods.includes("put") && methods.includes("createActor"), methods.join());
  const page = readFileSync(join(repo, "docs/fray.md"), "utf8");
  assert.deepEqual(
    methods.filter((name) => !new RegExp(`(ctx\\.|\`)${name}\\(`).test(page)),
    [],
    "methods docs/fray.md never shows as `ctx.NAME(…)`",
  );
});

/** The Markdown a reader follows links through: README, CONTRIBUTING, docs/ (not the generated API docs) and the examples' READMEs. */
function pages(): string[] {
  const examples = join(repo, "examples");
  return [
    join(repo, "README.md"),
    join(repo, "CONTRIBUTING.md"),
    ...markdownFiles(join(repo, "docs"), [join(repo, "docs", "api")]),
    ...markdownFiles(examples).filter((file) => dirname(dirname(file)) === examples && file.endsWith("README.md")),
  ];
}

it("every relative link (and #anchor) in README, CONTRIBUTING, docs/ and the examples' READMEs resolves", () => {
  const anchorsOf = new Map<string, Set<string>>();
  const anchorsIn = (file: string) => {
    if (!anchorsOf.has(file)) anchorsOf.set(file, anchors(codeBlocks(readFileSync(file, "utf8")).prose));
    return anchorsOf.get(file)!;
  };
  const broken: string[] = [];
  let checked = 0;
  for (const file of pages()) {
    for (const { line, target } of links(codeBlocks(readFileSync(file, "utf8")).prose)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not ours to check
      checked++;
      const where = `${relative(repo, file)}:${line}: ${target}`;
      const [path, anchor] = target.split("#", 2) as [string, string | undefined];
      const to = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
      if (!existsSync(to)) broken.push(`${where} (no such file)`);
      else if (anchor !== undefined && statSync(to).isFile() && to.endsWith(".md") && !anchorsIn(to).has(decodeURIComponent(anchor)))
        broken.push(`${where} (no heading with that anchor)`);
    }
  }
  assert.ok(checked > 50, `only ${checked} relative links found: is the link parser reading the pages?`);
  assert.deepEqual(broken, []);
});

/** One ```ts block as the files it is checked as: `// NAME.ts` lines split it; the preamble heads its last file. */
function blockFiles(block: CodeBlock, preamble: string): { name: string; text: string; firstLine: number }[] {
  const files: { name: string; lines: string[]; firstLine: number }[] = [];
  block.code.split("\n").forEach((text, i) => {
    const name = /^\/\/ ([\w.-]+\.ts)\b/.exec(text)?.[1];
    if (name || files.length === 0) files.push({ name: name ?? "block.ts", lines: [], firstLine: block.line + i });
    files.at(-1)!.lines.push(text);
  });
  return files.map((file, i) => ({
    name: file.name,
    text: `${i === files.length - 1 && preamble ? `${preamble}\n` : ""}${file.lines.join("\n")}\nexport {};\n`,
    firstLine: file.firstLine - (i === files.length - 1 && preamble ? preamble.split("\n").length : 0),
  }));
}

it("every ```ts block of README.md and docs/ type-checks against the package, as a user's code", () => {
  assert.ok(existsSync(join(repo, "dist", "job.d.ts")), "run `npm run build` first: the blocks import fray through package.json's exports (dist/)");
  // Inside the repository, so that "fray" resolves to this package by its own name (a self-reference).
  mkdirSync(join(repo, "test-artifacts"), { recursive: true });
  const root = mkdtempSync(join(repo, "test-artifacts", "docs-blocks-"));
  try {
    const origin = new Map<string, { page: string; firstLine: number }>();
    let checked = 0;
    for (const page of [join(repo, "README.md"), ...markdownFiles(join(repo, "docs"), [join(repo, "docs", "api")])]) {
      for (const block of codeBlocks(readFileSync(page, "utf8")).blocks) {
        if (block.lang !== "ts" && block.lang !== "typescript") continue;
        const comment = block.comment ?? "";
        if (/^ts-unchecked:\s*\S/.test(comment)) continue;
        assert.ok(!comment.startsWith("ts-unchecked"), `${relative(repo, page)}:${block.line}: say why a block is unchecked: <!-- ts-unchecked: why -->`);
        const preamble = comment.startsWith("ts-preamble") ? comment.slice("ts-preamble".length).trim() : "";
        const dir = join(root, `${relative(repo, page).replace(/[/.]/g, "_")}-L${block.line}`);
        mkdirSync(dir);
        for (const file of blockFiles(block, preamble)) {
          writeFileSync(join(dir, file.name), file.text);
          origin.set(join(dir, file.name), { page: relative(repo, page), firstLine: file.firstLine });
        }
        checked++;
      }
    }
    assert.ok(checked >= 10, `only ${checked} ts blocks found`);
    writeFileSync(
      join(root, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2023", "ESNext.Disposable", "ESNext.Decorators"],
          types: ["node"],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        },
        include: ["**/*.ts"],
      }),
    );
    const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
    const { status, stdout, stderr } = spawnSync(process.execPath, [tsc, "-p", "tsconfig.json"], {
      cwd: root,
      encoding: "utf8",
      timeout: 150_000,
      killSignal: "SIGKILL",
    });
    // tsc names a generated file and its line: say the page and its line instead.
    const report = `${stdout}${stderr}`.replace(/^(\S+\.ts)\((\d+),(\d+)\)/gm, (whole, file: string, line: string, column: string) => {
      const from = origin.get(resolve(root, file));
      return from ? `${from.page}:${from.firstLine + Number(line) - 1}:${column} (${file})` : whole;
    });
    assert.equal(status, 0, report);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
