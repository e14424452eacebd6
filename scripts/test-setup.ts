// npm test's setup, run before the lint and the suite: installs what the tests need beyond
// `npm install` — Debian packages (chromium, iproute2, openssl, procps, Slurm) with apt-get, and the
// Node versions they run on from the npm registry — once, under a lock, with a message naming each
// package and the command to run when it cannot. Tests that need one of these call it too, so a
// test file run by itself finds what it needs.
//   node --import tsx scripts/test-setup.ts
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { withLock } from "./test-setup/lock.ts";
import { cacheDir, installNode, NODE_MAJORS, nodeBinary, type NodeMajor } from "./test-setup/node-versions.ts";
import { ensureSystemPackages, missingPackages, present, SYSTEM_PACKAGES } from "./test-setup/system-packages.ts";

export { NODE_MAJORS, SUITE_NODE, type NodeMajor } from "./test-setup/node-versions.ts";

const lockFile = () => join(cacheDir(), "setup.lock");

/** Everything: the Debian packages, then every Node version. */
export async function setUpTests(): Promise<void> {
  await withLock(lockFile(), () => {
    ensureSystemPackages(SYSTEM_PACKAGES);
    for (const major of NODE_MAJORS) installNode(major);
  });
}

/** The node binary of `major`, installed first if it is not yet. */
export async function testNode(major: NodeMajor): Promise<string> {
  if (!existsSync(nodeBinary(major))) await withLock(lockFile(), () => installNode(major));
  return nodeBinary(major);
}

/** Installs the Debian packages named (from SYSTEM_PACKAGES) that are missing. */
export async function testPackages(...names: string[]): Promise<void> {
  const wanted = SYSTEM_PACKAGES.filter((p) => names.includes(p.name));
  if (wanted.length !== names.length) throw new Error(`testPackages: unknown package in ${names.join(", ")}; known: ${SYSTEM_PACKAGES.map((p) => p.name)}`);
  if (missingPackages(wanted, present).length > 0) await withLock(lockFile(), () => ensureSystemPackages(wanted));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    await setUpTests();
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
  }
}
