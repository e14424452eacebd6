// `npm run docs`: TypeDoc's HTML API docs, one module per entry point of package.json's
// "exports", from the entry files' module comments and the JSDoc under them. Any TypeDoc
// warning fails the build (typedoc.config.mjs), so a type that a public signature names but
// no entry point exports is caught here. And README shows every method of a JobContext.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, it } from "node:test";

const repo = fileURLToPath(new URL("..", import.meta.url));
const out = mkdtempSync(join(tmpdir(), "fray-docs-"));
after(() => rmSync(out, { recursive: true, force: true }));

it("npm run docs builds a page for every entry point, with its module comment and example, and warns of nothing", () => {
  const build = spawnSync("npm", ["run", "docs", "--", "--out", out], { cwd: repo, encoding: "utf8", timeout: 300_000, killSignal: "SIGKILL" });
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

it("README documents every method of JobContext", () => {
  const source = readFileSync(join(repo, "src/job/job-context.ts"), "utf8");
  const body = /export interface JobContext \{([\s\S]*?)\n\}/.exec(source)![1];
  const methods = [...new Set([...body.matchAll(/^ {2}(\w+)[<(]/gm)].map((m) => m[1]))];
  assert.ok(methods.includes("put") && methods.includes("createActor"), methods.join());
  const readme = readFileSync(join(repo, "README.md"), "utf8");
  assert.deepEqual(
    methods.filter((name) => !new RegExp(`(ctx\\.|\`)${name}\\(`).test(readme)),
    [],
    "methods README never shows as `ctx.NAME(…)`",
  );
});
