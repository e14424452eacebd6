// Entry point of every worker process: serve a Proc at the address the parent
// chose, dial the parent to say we are up, and exit when the parent goes away
// (our stdin is a pipe from it; the kernel closes it however the parent dies).
// The same entry serves worker threads, where `process.exit` ends the thread.
import { isMainThread, workerData, type MessagePort } from "node:worker_threads";
import { cacheAsWorker } from "../runtime/code/bundle-script.ts";
import { enableCompileCache } from "../runtime/code/compile-cache.ts";
import { requireEsm } from "../runtime/code/esm-require.ts";

enableCompileCache();
cacheAsWorker();

/**
 * The runtime, with mesh handles registered before any message is decoded;
 * compiled, loaded through require() where that gives the same modules
 * (esm-require.ts): less CPU at every worker's start than import().
 */
async function loadRuntime(): Promise<typeof import("./worker-runtime.ts")> {
  const required = requireEsm(new URL("./worker-runtime.js", import.meta.url).href) as typeof import("./worker-runtime.ts") | null;
  return required ?? (await import("./worker-runtime.ts"));
}

const { config, settingName, captureOutput, serveProc } = await loadRuntime();
const addr = config.procAddr;
const parent = config.parentAddr;
if (!addr || !parent) {
  console.error(`fray: this is a worker entry point started by spawnProcs(); it needs ${settingName("procAddr")} and ${settingName("parentAddr")}`);
  process.exit(2);
}
let proc: Awaited<ReturnType<typeof serveProc>>;
try {
  proc = await serveProc(addr);
} catch (err) {
  console.error(`fray: this worker ${(err as Error).message}`);
  process.exit(1);
}
const parentPort = (workerData as { frayParentPort?: MessagePort } | null)?.frayParentPort;
// Only a worker thread talks to its parent over a MessagePort; a process loads no more than it uses.
if (parentPort) proc.connectVia(parent, new (await import("../wire/message-port-transport.ts")).MessagePortTransport(parentPort));
else proc.connect(parent);
// The parent set FRAY_LOG_STREAM: "1" when it reads our output and tags it.
if (config.logStream === "1") captureOutput((s, lines) => proc.send(parent, { kind: "log", stream: s, lines }));
if (isMainThread) {
  process.stdin.on("end", () => process.exit(0));
  process.stdin.on("error", () => process.exit(0));
  process.stdin.resume();
} // a worker thread ends with its process anyway
