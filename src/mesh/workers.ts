// Multi-host: `runWorker` (CLI `fray worker`) serves a machine to clients;
// `attachToWorkers` makes those workers a HostMesh. Every connection
// authenticates with the shared token (FRAY_TOKEN or a token file).
import { tcpHostPort, useTls, useToken, type TlsFiles } from "../runtime/face/network.ts";
import { config, settingName } from "./settings.ts";
import { serveHostAgent, startProc } from "../runtime/face/hosts.ts";
import { Extent } from "./shape/extent.ts";
import { HostMesh, WORKER_ENTRY } from "./host-mesh.ts";
import { currentProc, serveProc } from "../runtime/face/procs.ts";

export interface AttachOptions {
  /** The workers' shared token; default FRAY_TOKEN. */
  readonly token?: string;
  /** Mutual TLS: PEM file paths of the shared CA and this client's certificate and key. */
  readonly tls?: TlsFiles;
}

/**
 * The workers at `addrs` (`tcp://host:port`, each running `fray worker`) as a
 * HostMesh with extent `{hosts: N}`. Connections authenticate with the token.
 */
export function attachToWorkers(addrs: readonly string[], options: AttachOptions = {}): HostMesh {
  if (addrs.length === 0) throw new RangeError("attachToWorkers needs at least one worker address");
  for (const a of addrs) tcpHostPort(a);
  const token = options.token ?? config.token;
  if (!token) throw new TypeError(`attachToWorkers needs the workers' token: pass { token } or set ${settingName("token")}`);
  useToken(token);
  if (options.tls) useTls(options.tls);
  currentProc(addrs); // listens where the workers' hosts reach back, or refuses if it cannot
  return new HostMesh(new Extent(["hosts"], [addrs.length]), addrs);
}

export interface WorkerOptions {
  /** Where to listen: `tcp://0.0.0.0:22222`, or ADVERTISE@BIND like `tcp://10.0.0.5:22222@tcp://0.0.0.0:22222`. */
  readonly listen: string;
  /** The shared token; default FRAY_TOKEN. Never take it from a command line. */
  readonly token?: string;
  /** Mutual TLS: PEM file paths of the shared CA and this worker's certificate and key. */
  readonly tls?: TlsFiles;
}

/**
 * Serves this process as a worker: clients attach with `attachToWorkers` and
 * start procs here; when a client goes away its procs are stopped and the
 * worker waits for the next. Resolves with the advertised address once it
 * listens; rejects naming the address when it cannot listen there.
 */
export async function runWorker(options: WorkerOptions): Promise<string> {
  const token = options.token ?? config.token;
  if (!token) throw new TypeError(`a worker needs a token (${settingName("token")}, or --token-file): an open worker runs code for anyone who connects`);
  useToken(token);
  if (options.tls) useTls(options.tls);
  const at = options.listen.indexOf("@");
  const advertise = at >= 0 ? options.listen.slice(0, at) : options.listen;
  const bind = at >= 0 ? options.listen.slice(at + 1) : options.listen;
  tcpHostPort(advertise);
  const proc = await serveProc(options.listen);
  const bindHost = tcpHostPort(bind).host;
  // Each proc binds a port the OS picks and reports it here (proc-directory.ts).
  serveHostAgent(proc, (addr, { place, log, typescript }) => startProc(proc, WORKER_ENTRY, { addr, bind: `tcp://${bindHost}:0`, place, log, typescript }));
  return advertise;
}
