// The actors in a cluster's namespace, as `fray actor list|kill` and
// `cluster.listActors()` see them: asked of the running namespace service
// with the cluster's token.
import { useToken } from "../runtime/face/network.ts";
import type { HostedActorRow } from "../job/namespace/hosted-actor.ts";
import { NamespaceClient } from "../job/namespace/namespace-client.ts";
import type { NamespaceServiceInfo } from "./namespace/service.ts";

/** A namespace actor, as a line of `fray actor list` shows it. */
export type ActorRow = HostedActorRow;

async function clientOf(service: NamespaceServiceInfo): Promise<NamespaceClient> {
  useToken(service.token);
  return NamespaceClient.at(service.address);
}

export async function listActors(service: NamespaceServiceInfo | null): Promise<ActorRow[]> {
  return service ? (await clientOf(service)).list() : [];
}

export async function killActor(service: NamespaceServiceInfo | null, name: string, cluster: string): Promise<void> {
  if (!service) throw new Error(`there is no actor named '${name}': the namespace service of cluster ${cluster} is not running`);
  await (await clientOf(service)).kill(name);
}
