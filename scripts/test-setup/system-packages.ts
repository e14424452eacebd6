// The Debian packages the test suite needs beyond Node, what of them this machine lacks, and how
// to install what it lacks: with apt-get when this is root on a machine that has it, else a
// message naming the packages and the command to run.
import { execFileSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** A Debian package the tests need: what they use from it (a command looked up on PATH, or a file), and which tests. */
export interface SystemPackage {
  readonly name: string;
  readonly needs: readonly Need[];
  readonly usedBy: string;
}
export type Need = { readonly command: string } | { readonly file: string };

export const SYSTEM_PACKAGES: readonly SystemPackage[] = [
  { name: "chromium", needs: [{ file: "/usr/bin/chromium" }], usedBy: "test/cluster/dashboard.test.ts drives it as a headless browser" },
  { name: "iproute2", needs: [{ command: "ip" }], usedBy: "the network-namespace tests and the test Slurm's hosts (ip netns)" },
  { name: "openssl", needs: [{ command: "openssl" }], usedBy: "fray certs and the TLS tests" },
  { name: "procps", needs: [{ command: "ps" }], usedBy: "test/wire/security.test.ts reads process command lines" },
  // scripts/slurm.sh installs the same two itself (with more for its SLURM_DBD and SLURM_REST modes).
  { name: "slurm-wlm", needs: [{ command: "slurmctld" }, { command: "slurmd" }, { command: "sbatch" }], usedBy: "test/cluster/slurm.test.ts" },
  { name: "munge", needs: [{ command: "munged" }], usedBy: "test/cluster/slurm.test.ts (Slurm's authentication)" },
];

/** The packages of `wanted` some of whose needs `present` says are missing. */
export function missingPackages(wanted: readonly SystemPackage[], present: (need: Need) => boolean): SystemPackage[] {
  return wanted.filter((p) => !p.needs.every(present));
}

/** What this machine is, as far as installing packages goes. */
export interface Installer {
  readonly root: boolean;
  readonly aptGet: boolean;
}

/** Either the commands that install `missing` (none when nothing is), or why they cannot run here and what the user should run. */
export type InstallPlan = { readonly commands: readonly (readonly string[])[] } | { readonly cannot: string };

export function installPlan(missing: readonly SystemPackage[], installer: Installer): InstallPlan {
  if (missing.length === 0) return { commands: [] };
  const names = missing.map((p) => p.name).join(" ");
  // Recommended packages too: chromium's bring the fonts its pages (and the dashboard's screenshots) are drawn with.
  const commands = [
    ["apt-get", "update", "-qq"],
    ["apt-get", "install", "-y", "-qq", ...missing.map((p) => p.name)],
  ];
  if (installer.aptGet && installer.root) return { commands };
  const what = missing.map((p) => `  ${p.name}: ${p.usedBy}`).join("\n");
  const why = installer.aptGet
    ? `installing them takes root, and this is not root: run\n  sudo apt-get update && sudo apt-get install -y ${names}\nthen the tests again`
    : `this machine has no apt-get: install them (Debian's names: ${names}) with its package manager, then run the tests again`;
  return { cannot: `fray test setup: the tests need these Debian packages, which are not installed:\n${what}\n${why}` };
}

/** Whether this machine has what `need` asks for: a command on PATH (the sbin directories included), or a file. */
export function present(need: Need): boolean {
  if ("file" in need) return executable(need.file);
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/local/sbin", "/usr/sbin", "/sbin"];
  return dirs.some((dir) => dir !== "" && executable(join(dir, need.command)));
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** This machine, as installPlan needs to know it. */
export function thisInstaller(): Installer {
  return { root: process.getuid?.() === 0, aptGet: present({ command: "apt-get" }) };
}

/** Installs what of `wanted` is missing; throws the plan's message when it cannot. */
export function ensureSystemPackages(wanted: readonly SystemPackage[] = SYSTEM_PACKAGES): void {
  const missing = missingPackages(wanted, present);
  const plan = installPlan(missing, thisInstaller());
  if ("cannot" in plan) throw new Error(plan.cannot);
  if (plan.commands.length === 0) return;
  console.error(`fray test setup: installing ${missing.map((p) => p.name).join(", ")} with apt-get`);
  for (const [cmd, ...args] of plan.commands) {
    try {
      execFileSync(cmd, args, { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
    } catch (err) {
      throw new Error(`fray test setup: \`${[cmd, ...args].join(" ")}\` failed (${(err as Error).message.split("\n")[0]}); its output is above`, {
        cause: err,
      });
    }
  }
  const still = missingPackages(wanted, present);
  if (still.length > 0)
    throw new Error(`fray test setup: apt-get installed ${still.map((p) => p.name).join(" ")}, yet these are still missing: ${describe(still)}`);
}

function describe(packages: readonly SystemPackage[]): string {
  return packages
    .flatMap((p) => p.needs.filter((n) => !present(n)))
    .map((n) => ("file" in n ? n.file : `the command ${n.command}`))
    .join(", ");
}
