// Entry point of a cluster's namespace service (started by the cluster, see
// namespace/service.ts): serves this process as a worker at ADDR, so the
// actors it hosts are processes every node can reach, runs the NamespaceActor
// under its well-known id, serves the cluster's dashboard (FRAY_DASHBOARD_LISTEN,
// loopback by default), and then says where both are by writing STATE_FILE.
// Every connection and every dashboard request needs FRAY_TOKEN. It serves
// until it is idle, its state directory is gone, or it is stopped
// (service-lifetime.ts), or until it is killed.
//   node namespace-main.js ADDR STATE_FILE CLUSTER_SPEC
import { dirname } from "node:path";
import { config } from "../settings.ts";
import { sessionToken } from "../../runtime/face/network.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { thisProc } from "../../mesh/host-mesh.ts";
import { kSpawnWith } from "../../mesh/proc-mesh.ts";
import { runWorker } from "../../mesh/workers.ts";
import { NamespaceActor } from "../../job/namespace/namespace-actor.ts";
import { NAMESPACE_MESH_ID } from "../../job/namespace/namespace-client.ts";
import { createCluster } from "../create.ts";
import { writeJson } from "../job-files.ts";
import { TERMINAL } from "../types.ts";
import { clusterSources, runtimeSources } from "../dashboard/sources.ts";
import { startDashboard } from "../dashboard/server.ts";
import { liveClientHosted } from "./client-hosted-records.ts";
import { SERVICE_CONTROL_ID, ServiceControl, watchLifetime } from "./service-lifetime.ts";

const [listen, stateFile, spec] = process.argv.slice(2);
if (!listen || !stateFile || !spec) {
  console.error("fray: this is the namespace service's entry point, started by a cluster; it needs ADDR, STATE_FILE and CLUSTER_SPEC");
  process.exit(2);
}
try {
  const addr = await runWorker({ listen });
  // Started again after it died: the actors clients host are known by name again before any call is answered (calls
  // that come before the namespace is spawned wait for it).
  const adopted = await liveClientHosted(dirname(stateFile));
  const namespace = thisProc()[kSpawnWith]({ id: NAMESPACE_MESH_ID }, "namespace", NamespaceActor, addr, adopted);
  await namespace.initialized;
  // Its own meshes (the actors it hosts, their restarts and failures), and the cluster's jobs and actors.
  const cluster = createCluster(spec);
  const dashboard = await startDashboard({
    listen: config.dashboardListen,
    token: sessionToken(),
    sources: { ...runtimeSources(), ...clusterSources(cluster) },
  });
  const control = thisProc()[kSpawnWith]({ id: SERVICE_CONTROL_ID }, "namespace-service", ServiceControl);
  await control.initialized;
  watchLifetime(dirname(stateFile), {
    hostedActors: async () => (await namespace.list.callOne()).length,
    clients: () => currentProc().connectedPeers().length + dashboard.viewers,
    liveJobs: async () => (await cluster.listJobs()).filter((j) => !TERMINAL.has(j.status)).length,
    close: async () => {
      await namespace.stop(); // its cleanup ends the actors it hosts
      await dashboard.close();
    },
  });
  writeJson(stateFile, { addr, pid: process.pid, dashboard: dashboard.url }); // whole or not at all, for whoever waits on it
  console.log(`fray namespace service at ${addr} (pid ${process.pid}), dashboard at ${dashboard.url}`);
} catch (err) {
  console.error(`fray: the namespace service cannot start: ${(err as Error).message}`);
  process.exit(1);
}
