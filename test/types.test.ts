// ActorMesh<T> (and a cluster callable's arguments) are typed from the code: wrong endpoint names, argument types
// and return types are compile errors. tsc checks test/types/mesh-types.ts,
// whose @ts-expect-error lines fail the build if they stop being errors.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { it } from "node:test";

it("wrong endpoints and argument types are compile errors; right ones compile", () => {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const project = fileURLToPath(new URL("./types/tsconfig.json", import.meta.url));
  const { status, stdout, stderr } = spawnSync(process.execPath, [tsc, "-p", project], { encoding: "utf8", timeout: 150_000, killSignal: "SIGKILL" });
  assert.equal(status, 0, `tsc reported:\n${stdout}${stderr}`);
});
