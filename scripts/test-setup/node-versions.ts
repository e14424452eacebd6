// The Node versions the tests run on: npm test runs the suite on SUITE_NODE, and the package-install
// test runs a user's installed program and the demo on each of NODE_MAJORS. Each comes from the npm
// registry's node-<platform>-<arch> package (a node binary in a package), installed once into
// <cache>/fray-node/<major> (the cache: $XDG_CACHE_HOME, else ~/.cache).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const NODE_MAJORS = [20, 22, 24, 26] as const;
export type NodeMajor = (typeof NODE_MAJORS)[number];
/** The current LTS, which runs the whole suite. */
export const SUITE_NODE: NodeMajor = 24;

/** Where the setup keeps what it installs, and its lock. */
export function cacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "fray-test");
}

const nodePackage = `node-${process.platform}-${process.arch}`;

export function nodeDir(major: NodeMajor): string {
  return join(cacheDir(), "node", String(major));
}

/** The node binary of `major` (installed by installNode). */
export function nodeBinary(major: NodeMajor): string {
  return join(nodeDir(major), "node_modules", nodePackage, "bin", "node");
}

/** Installs `major` unless it is there: into a temporary directory renamed into place whole, so a killed install leaves no half binary. */
export function installNode(major: NodeMajor): void {
  if (existsSync(nodeBinary(major))) return;
  const dir = nodeDir(major);
  mkdirSync(join(dir, ".."), { recursive: true });
  const tmp = mkdtempSync(`${dir}.install-`);
  try {
    writeFileSync(join(tmp, "package.json"), JSON.stringify({ name: `fray-test-node-${major}`, private: true }));
    const spec = `${nodePackage}@${major}`;
    console.error(`fray test setup: installing Node ${major} (npm package ${spec}) into ${dir}`);
    try {
      execFileSync("npm", ["install", "--prefix", tmp, "--no-audit", "--no-fund", "--no-update-notifier", "--prefer-offline", spec], {
        stdio: ["ignore", "ignore", "pipe"],
        encoding: "utf8",
      });
    } catch (err) {
      const output = String((err as { stderr?: string }).stderr ?? "").trim();
      throw new Error(
        `fray test setup: npm install ${spec} failed; the tests run on Node ${NODE_MAJORS.join(", ")} from the npm registry's ${nodePackage} ` +
          `packages:\n${output}`,
        { cause: err },
      );
    }
    const version = execFileSync(join(tmp, "node_modules", nodePackage, "bin", "node"), ["--version"], { encoding: "utf8" }).trim();
    if (!version.startsWith(`v${major}.`)) throw new Error(`fray test setup: npm package ${spec} installed node ${version}, not Node ${major}`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
