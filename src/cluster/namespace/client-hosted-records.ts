// The actors clients host in their own processes (Client.hostActor), written down in the namespace's state
// directory (namespace/client-hosted/NAME.json) as they are registered with the service, so that the service,
// started again after it died, knows them by name before it answers anyone: a job that asks for one then gets
// the client's actor, never a new one in the service. A record whose client no longer accepts connections is dropped.
import { connect } from "node:net";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { connectOptions } from "../../runtime/face/network.ts";
import type { AdoptedActorRecord } from "../../job/namespace/hosted-actor.ts";
import { readJson, writeJson } from "../job-files.ts";

/** What the service needs to register a client's actor again (NamespaceActor's `adopted`). */
export type ClientHostedRecord = AdoptedActorRecord;

function recordsDir(namespaceDir: string): string {
  return join(namespaceDir, "client-hosted");
}

function recordPath(namespaceDir: string, name: string): string {
  return join(recordsDir(namespaceDir), `${encodeURIComponent(name)}.json`);
}

export function writeClientHosted(namespaceDir: string, record: ClientHostedRecord): void {
  mkdirSync(recordsDir(namespaceDir), { recursive: true, mode: 0o700 });
  writeJson(recordPath(namespaceDir, record.spec.options.name!), record);
}

export function removeClientHosted(namespaceDir: string, name: string): void {
  rmSync(recordPath(namespaceDir, name), { force: true });
}

/** The records whose client still accepts connections; the others are removed. */
export async function liveClientHosted(namespaceDir: string): Promise<ClientHostedRecord[]> {
  let files: string[];
  try {
    files = readdirSync(recordsDir(namespaceDir)).filter((f) => f.endsWith(".json"));
  } catch {
    return [];
  }
  const live: ClientHostedRecord[] = [];
  for (const file of files) {
    const path = join(recordsDir(namespaceDir), file);
    const record = readJson<ClientHostedRecord>(path);
    if (record && (await listens(record.addr))) live.push(record);
    else rmSync(path, { force: true });
  }
  return live;
}

function listens(addr: string): Promise<boolean> {
  let where: ReturnType<typeof connectOptions>;
  try {
    where = connectOptions(addr);
  } catch {
    return Promise.resolve(false); // a proc behind a worker: a client's own process is never one
  }
  return new Promise((resolve) => {
    const socket = connect(where);
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => (socket.destroy(), resolve(false)));
  });
}
