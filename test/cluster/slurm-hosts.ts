// The test Slurm's hosts as `scripts/slurm.sh up` made them (it writes them to
// /run/fray-slurm/hosts.json): the submit host and nodes n1..nN, each its own
// network namespace, the nodes with their own /tmp and /dev/shm, and the shared
// directory every host sees. Used by slurm.test.ts, which starts the cluster, and
// by slurm-cases.ts and cluster-suite.ts, which run on the submit host.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const SLURM_SCRIPT = fileURLToPath(new URL("../../scripts/slurm.sh", import.meta.url));
const HOSTS_FILE = "/run/fray-slurm/hosts.json";

export interface SlurmHosts {
  /** The submit host: slurmctld, and where Slurm's commands, the clients and the namespace service run. */
  readonly submit: { readonly name: string; readonly netns: string; readonly ip: string };
  /** `pid`: the process holding the node's mount and UTS namespaces (nsenter -t PID -m -n -u). */
  readonly nodes: readonly { readonly name: string; readonly netns: string; readonly ip: string; readonly pid: number }[];
  /** A directory every host sees (NFS homes on a real cluster); the cluster's state dirs go under it. */
  readonly shared: string;
}

export function slurmHosts(): SlurmHosts {
  if (!existsSync(HOSTS_FILE))
    throw new Error(`${HOSTS_FILE} is missing: start the test Slurm with 'bash ${SLURM_SCRIPT} up' (test/cluster/slurm.test.ts does)`);
  return JSON.parse(readFileSync(HOSTS_FILE, "utf8")) as SlurmHosts;
}

/** Runs `command` on node `name` (its network, mount and UTS namespaces); nsenter execs it, so the child's pid is the command's. */
export function spawnOnNode(name: string, command: readonly string[]): ChildProcess {
  const node = slurmHosts().nodes.find((n) => n.name === name);
  if (!node) throw new Error(`the test Slurm has no node ${name}`);
  return spawn("nsenter", ["-t", String(node.pid), "-m", "-n", "-u", ...command], { stdio: ["ignore", "pipe", "inherit"] });
}
