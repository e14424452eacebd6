// Entry point of a cluster's namespace service (started by the cluster, see
// src/cluster/namespace-service.ts): serves this process as a worker at
// ADDR, so the actors it hosts are processes every node can reach, runs the
// NamespaceActor under its well-known id, and then says where it is by
// writing STATE_FILE. It authenticates every connection with FRAY_TOKEN and
// serves until it is killed.
//   node namespace-main.js ADDR STATE_FILE
import { renameSync, writeFileSync } from "node:fs";
import { thisProc } from "../mesh/host-mesh.ts";
import { kSpawnWith } from "../mesh/proc-mesh.ts";
import { runWorker } from "../mesh/workers.ts";
import { NamespaceActor } from "./namespace-actor.ts";
import { NAMESPACE_MESH_ID } from "./namespace-client.ts";

const [listen, stateFile] = process.argv.slice(2);
if (!listen || !stateFile) {
  console.error("fray: this is the namespace service's entry point, started by a cluster; it needs ADDR and STATE_FILE");
  process.exit(2);
}
try {
  const addr = await runWorker({ listen });
  const namespace = thisProc()[kSpawnWith]({ id: NAMESPACE_MESH_ID }, "namespace", NamespaceActor, addr);
  await namespace.initialized;
  writeFileSync(`${stateFile}.tmp`, `${JSON.stringify({ addr, pid: process.pid })}\n`);
  renameSync(`${stateFile}.tmp`, stateFile); // whole or not at all, for whoever waits on it
  console.log(`fray namespace service at ${addr} (pid ${process.pid})`);
} catch (err) {
  console.error(`fray: the namespace service cannot start: ${(err as Error).message}`);
  process.exit(1);
}
