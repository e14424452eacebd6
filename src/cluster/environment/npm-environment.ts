// A job's environment.npmPackages: installed once per set of packages (and
// node major version) into <clusterRoot>/npm/<sha256>/, shared by every job
// that asks for the same set, so two jobs can use two versions of a package
// side by side. An install goes to a temporary directory first and is renamed
// into place whole: a launch never sees half an install, and of two launches
// installing the same set at once, one's rename wins and the other discards its own.
// Jobs resolve the packages with require() through NODE_PATH and with ESM import
// through a resolve hook (NODE_PATH does not apply to ESM) registered with
// --import; both are tried only after the job's own node_modules.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { config, settingNow } from "../settings.ts";

/** Where a job's packages are: the cache entry, and the module its node processes --import. */
export interface NpmEnvironment {
  readonly dir: string;
  readonly registerUrl: string;
}

/** Changes whenever the files written into an entry (the hooks) change, so old entries are not reused. */
const LAYOUT = 2;
const OUTPUT_TAIL_LINES = 20;

// Tried after node's own resolution fails, for bare specifiers only: resolve as if imported from the entry.
// One function for both kinds of hooks: module.registerHooks' (in-thread, `next` returns the result)
// and module.register's (off-thread, `next` returns a promise).
const ESM_HOOK = `// Written by fray: ESM imports the job's own packages do not provide resolve in this npm environment.
const base = new URL("./package.json", import.meta.url).href;
const relativeOrUrl = /^(\\.{0,2}\\/|#|[a-z][a-z0-9+.-]*:)/i;
export function resolve(specifier, context, next) {
  const retry = (err) => {
    if (err?.code !== "ERR_MODULE_NOT_FOUND" || relativeOrUrl.test(specifier)) throw err;
    return next(specifier, { ...context, parentURL: base });
  };
  try {
    const found = next(specifier, context);
    return found instanceof Promise ? found.catch(retry) : found;
  } catch (err) {
    return retry(err);
  }
}
`;

// module.registerHooks exists from Node 22.15 and 23.5; module.register, the only way on Node 20,
// is deprecated (DEP0205) and warns into the job's output on Node 26.
const ESM_REGISTER = `// Written by fray: loaded with --import (NODE_OPTIONS) in the job's node processes.
import * as nodeModule from "node:module";
import { resolve } from "./esm-hook.mjs";
if (nodeModule.registerHooks) nodeModule.registerHooks({ resolve });
else nodeModule.register("./esm-hook.mjs", import.meta.url);
`;

/** The cache entry for `specs`, installed now unless an earlier launch did; rejects with npm's output if the install fails. */
export async function npmEnvironment(job: string, specs: readonly string[], clusterRoot: string): Promise<NpmEnvironment> {
  const sorted = [...new Set(specs)].sort();
  const node = process.versions.node.split(".")[0];
  const key = createHash("sha256")
    .update(JSON.stringify({ specs: sorted, node, layout: LAYOUT }))
    .digest("hex");
  const root = join(clusterRoot, "npm");
  const dir = join(root, key);
  const found = { dir, registerUrl: pathToFileURL(join(dir, "esm-register.mjs")).href };
  if (existsSync(join(dir, "fray-env.json"))) return found;
  mkdirSync(root, { recursive: true });
  const tmp = mkdtempSync(join(root, `.install-${key.slice(0, 12)}-`));
  try {
    writeFileSync(join(tmp, "package.json"), JSON.stringify({ name: "fray-npm-environment", private: true }, null, 2));
    const output = await npmInstall(job, sorted, tmp);
    writeFileSync(join(tmp, "esm-hook.mjs"), ESM_HOOK);
    writeFileSync(join(tmp, "esm-register.mjs"), ESM_REGISTER);
    // Written last: its presence says the entry is complete.
    writeFileSync(
      join(tmp, "fray-env.json"),
      JSON.stringify({ specs: sorted, node: process.versions.node, installedAt: new Date().toISOString(), npmOutput: output }, null, 2),
    );
    renameSync(tmp, dir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    const code = (err as NodeJS.ErrnoException).code;
    // Another launch installed the same set meanwhile: use its entry.
    if ((code === "ENOTEMPTY" || code === "EEXIST") && existsSync(join(dir, "fray-env.json"))) return found;
    throw err;
  }
  return found;
}

/** npm install of `specs` into `prefix`; resolves to npm's output. */
function npmInstall(job: string, specs: readonly string[], prefix: string): Promise<string> {
  // The npm that comes with the node running us, else the one on PATH.
  const besideNode = join(dirname(process.execPath), "npm");
  const npm = existsSync(besideNode) ? besideNode : "npm";
  // --prefix: an npm_config_prefix inherited from `npm run` must not send the install elsewhere.
  const args = ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-update-notifier", ...specs];
  return new Promise((resolve, reject) => {
    execFile(npm, args, { cwd: prefix, timeout: config.npmInstallTimeoutMs, killSignal: "SIGKILL", maxBuffer: 16 * 2 ** 20 }, (err, stdout, stderr) => {
      const output = `${stdout}${stderr}`.trim();
      if (!err) return resolve(output);
      const tail = output.split("\n").slice(-OUTPUT_TAIL_LINES).join("\n");
      const how = err.killed
        ? `was stopped after ${settingNow("npmInstallTimeoutMs")}`
        : err.code === "ENOENT"
          ? `could not start (${npm} not found; install npm)`
          : `exited with code ${err.code}`;
      reject(new Error(`job ${job}: npm install ${specs.join(" ")} ${how}; check environment.npmPackages:\n${tail}`));
    });
  });
}
