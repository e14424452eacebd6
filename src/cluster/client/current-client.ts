// Choosing a client: createClient(spec), and the ambient one, currentClient():
// the one the program set with withClient → FRAY_CLUSTER_SPEC's → local — as
// currentCluster() chooses a cluster, and over the same Cluster objects.
import { AsyncLocalStorage } from "node:async_hooks";
import { config } from "../settings.ts";
import { createCluster } from "../create.ts";
import { Client } from "./client.ts";

const ambient = new AsyncLocalStorage<Client>();
const bySpec = new Map<string, Client>();

/** A client of the cluster `spec` names: "local", "local?dir=DIR", "slurm?partition=P&account=A&dir=DIR" (default FRAY_CLUSTER_SPEC, else local). */
export function createClient(spec: string = config.clusterSpec): Client {
  return new Client(createCluster(spec));
}

/** The client set by withClient, else one of the cluster FRAY_CLUSTER_SPEC names (as a job's replicas see it), else of local; one per spec. */
export function currentClient(): Client {
  const set = ambient.getStore();
  if (set) return set;
  const spec = config.clusterSpec;
  let client = bySpec.get(spec);
  if (!client) bySpec.set(spec, (client = createClient(spec)));
  return client;
}

/** Runs `fn` with `client` as currentClient(), including in everything it awaits (currentCluster() is withCluster's to set). */
export function withClient<T>(client: Client, fn: () => T): T {
  if (!(client instanceof Client)) throw new TypeError(`withClient(client, fn) takes a Client (createClient(spec)), got ${typeof client}`);
  return ambient.run(client, fn);
}
