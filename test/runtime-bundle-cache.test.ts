// The compiled runtime bundle starts from V8's code cache (src/runtime/code/bundle-script.ts): a process
// that finds none writes it when it exits, the next reads it and leaves it be; a cache V8 refuses is
// replaced; NODE_DISABLE_COMPILE_CACHE=1 turns it off; a directory others can write to, or one inside such a
// directory, is left alone;
// stack traces name src/ either way.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, it } from "node:test";

const mesh = fileURLToPath(new URL("../dist/mesh.js", import.meta.url));
// A program that uses the runtime: a stack trace through it, and an actor answering a call from a worker process.
const program = `import { Extent, thisHost } from ${JSON.stringify(mesh)};
import { WhereAmI } from ${JSON.stringify(fileURLToPath(new URL("./runtime-bundle-actors.mjs", import.meta.url)))};
try { Extent.of({ a: -1 }); } catch (e) { console.log(e.stack.split("\\n")[1].trim()); }
const procs = thisHost().spawnProcs({ procs: 1 });
console.log((await procs.spawn("where", WhereAmI).where.call()).get(0).oneActorClass);
await procs.stop();`;

let dir = "";
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "fray-bundle-cache-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (env: Record<string, string> = {}) =>
  execFileSync(process.execPath, ["--enable-source-maps", "--input-type=module", "-e", program], {
    encoding: "utf8",
    env: { ...process.env, NODE_COMPILE_CACHE: dir, NODE_DISABLE_COMPILE_CACHE: "", ...env },
    timeout: 60_000,
    killSignal: "SIGKILL",
  });
const caches = () => {
  try {
    return readdirSync(join(dir, "fray-runtime")).map((f) => join(dir, "fray-runtime", f));
  } catch {
    return [];
  }
};
const expected = (out: string) => {
  const [frame, answer] = out.trim().split("\n");
  assert.match(frame, /^at new Extent \(.*\/src\/mesh\/shape\/extent\.ts:\d+:\d+\)$/);
  assert.equal(answer, "true");
};

it("a process writes the bundle's code cache when it exits; the next starts from it and leaves it be", () => {
  expected(run());
  const written = caches().sort();
  // The program's process and its worker run with the same flags (--enable-source-maps is passed on); each writes its role's.
  assert.equal(written.length, 2, written.join(", "));
  assert.match(written[0], /-main\.v8cache$/);
  assert.match(written[1], /-worker\.v8cache$/);
  const before = written.map((f) => statSync(f));
  expected(run());
  const after = written.map((f) => statSync(f));
  assert.deepEqual(caches().sort(), written, "no other cache, no temp file left");
  assert.deepEqual(
    after.map((s) => [s.ino, s.mtimeMs]),
    before.map((s) => [s.ino, s.mtimeMs]),
    "a cache V8 took is not written again",
  );
});

it("a cache V8 refuses is replaced, and the runtime runs from its source meanwhile", () => {
  expected(run());
  const files = caches().sort();
  for (const file of files) writeFileSync(file, "not a code cache");
  expected(run());
  assert.deepEqual(caches().sort(), files);
  for (const file of files) assert.notEqual(readFileSync(file, "utf8"), "not a code cache");
});

it("NODE_DISABLE_COMPILE_CACHE=1 turns it off, as node's own", () => {
  expected(run({ NODE_DISABLE_COMPILE_CACHE: "1" }));
  assert.deepEqual(caches(), []);
});

it("a cache directory other users can write to is not used: its code would run as this user", () => {
  mkdirSync(join(dir, "fray-runtime"));
  chmodSync(join(dir, "fray-runtime"), 0o777);
  expected(run());
  assert.deepEqual(caches(), []);
  rmSync(join(dir, "fray-runtime"), { recursive: true });
  expected(run());
  assert.equal(statSync(join(dir, "fray-runtime")).mode & 0o777, 0o700, "made private");
  assert.equal(caches().length, 2);
});

it("nor is one inside a directory others can write to (they could replace it), however private itself", () => {
  const shared = join(dir, "shared");
  mkdirSync(join(shared, "cache", "fray-runtime"), { recursive: true, mode: 0o700 });
  chmodSync(shared, 0o777);
  expected(run({ NODE_COMPILE_CACHE: join(shared, "cache") }));
  assert.deepEqual(readdirSync(join(shared, "cache", "fray-runtime")), []);
  // The sticky bit (as /tmp has) lets no one replace another's entries: then it is used.
  chmodSync(shared, 0o1777);
  expected(run({ NODE_COMPILE_CACHE: join(shared, "cache") }));
  assert.equal(readdirSync(join(shared, "cache", "fray-runtime")).length, 2);
});
