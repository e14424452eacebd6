// Choosing a cluster: createCluster(spec), and the ambient one, currentCluster():
// withCluster's → FRAY_CLUSTER_SPEC's → local.
import { AsyncLocalStorage } from "node:async_hooks";
import { config } from "./settings.ts";
import type { Cluster } from "./cluster.ts";
import { parseClusterSpec } from "./cluster-spec.ts";
import { LocalCluster } from "./local/local-cluster.ts";
import { SlurmCluster } from "./slurm/slurm-cluster.ts";

const ambient = new AsyncLocalStorage<Cluster>();
const bySpec = new Map<string, Cluster>();

/** A cluster from a spec string: "local", "local?dir=DIR", "slurm?partition=P&account=A&dir=DIR". */
export function createCluster(spec: string = config.clusterSpec): Cluster {
  const parsed = parseClusterSpec(spec);
  return parsed.kind === "slurm" ? new SlurmCluster(spec, parsed) : new LocalCluster(spec, parsed);
}

/** The cluster set by withCluster, else the one FRAY_CLUSTER_SPEC names (as replicas see), else local. */
export function currentCluster(): Cluster {
  const set = ambient.getStore();
  if (set) return set;
  const spec = config.clusterSpec;
  let cluster = bySpec.get(spec);
  if (!cluster) bySpec.set(spec, (cluster = createCluster(spec)));
  return cluster;
}

/** Runs `fn` with `cluster` as currentCluster(), including in everything it awaits. */
export function withCluster<T>(cluster: Cluster, fn: () => T): T {
  return ambient.run(cluster, fn);
}
