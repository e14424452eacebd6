// Entry point of every worker process: serve a Proc at the address the parent
// chose, dial the parent to say we are up, and exit when the parent goes away
// (our stdin is a pipe from it; the kernel closes it however the parent dies).
// The same entry serves worker threads, where `process.exit` ends the thread.
import { createRequire } from "node:module";
import { isMainThread, workerData, type MessagePort } from "node:worker_threads";

const HOOK_FLAGS = /^(--import|--require|-r|--loader|--experimental-loader)(=|$)/;

/**
 * Whether this process may load the runtime through require(): compiled (not
 * under tsx), in a Node that loads ES modules that way (20.19 and later), and
 * with no loader hooks that could make require() load another copy than
 * import(). A thread starts with hooks its parent registered (host-agent.ts).
 */
function requireLoadsEsm(): boolean {
  if (!isMainThread || import.meta.url.endsWith(".ts")) return false;
  if (!(process.features as { require_module?: boolean }).require_module) return false;
  return ![...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((flag) => HOOK_FLAGS.test(flag));
}

/**
 * The runtime, with mesh handles registered before any message is decoded.
 * Where it can, through require(): synchronous loading costs every worker
 * ~15% less CPU at start than import() (issue 17, P6), and the modules are
 * the very instances a later import() of them returns.
 */
async function loadRuntime() {
  if (requireLoadsEsm()) {
    const require = createRequire(import.meta.url);
    try {
      require("./actor-mesh.js");
      return {
        config: require("../runtime/config.js") as typeof import("../runtime/config.ts"),
        output: require("../runtime/output-capture.js") as typeof import("../runtime/output-capture.ts"),
        proc: require("../runtime/proc.js") as typeof import("../runtime/proc.ts"),
      };
    } catch {
      // a module that awaits at top level cannot be required; import() it below
    }
  }
  const [config, output, proc] = await Promise.all([import("../runtime/config.ts"), import("../runtime/output-capture.ts"), import("../runtime/proc.ts"), import("./actor-mesh.ts")]);
  return { config, output, proc };
}

const {
  config: { config, settingName },
  output: { captureOutput },
  proc: { Proc },
} = await loadRuntime();
const addr = config.procAddr;
const parent = config.parentAddr;
if (!addr || !parent) {
  console.error(`fray: this is a worker entry point started by spawnProcs(); it needs ${settingName("procAddr")} and ${settingName("parentAddr")}`);
  process.exit(2);
}
let proc: Awaited<ReturnType<typeof Proc.serve>>;
try {
  proc = await Proc.serve(addr);
} catch (err) {
  console.error(`fray: this worker ${(err as Error).message}`);
  process.exit(1);
}
const parentPort = (workerData as { frayParentPort?: MessagePort } | null)?.frayParentPort;
// Only a worker thread talks to its parent over a MessagePort; a process loads no more than it uses.
if (parentPort) proc.connectVia(parent, new (await import("../wire/message-port-transport.ts")).MessagePortTransport(parentPort));
else proc.connect(parent);
// The parent set FRAY_LOG_STREAM: "1" when it reads our output and tags it.
if (config.logStream === "1") captureOutput((s, lines) => proc.send(parent, { k: "log", s, lines }));
if (isMainThread) {
  process.stdin.on("end", () => process.exit(0));
  process.stdin.on("error", () => process.exit(0));
  process.stdin.resume();
} // a worker thread ends with its process anyway
