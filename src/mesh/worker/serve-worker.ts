// What a worker does once its runtime is loaded, whichever entry started it: serve a Proc at the
// address the parent chose, dial the parent to say we are up, and exit when the parent goes away (a
// process's stdin is a pipe from it; the kernel closes it however the parent dies), taking the
// process group it leads with it (runtime/hosts/host-agent.ts). A worker thread
// talks to its parent over the MessagePort it was given, and ends with its process.
import type { MessagePort } from "node:worker_threads";
import { config, settingName } from "../settings.ts";
import { adoptParentLink, captureOutput, knowMainThread, noteThreadChildren, sendLogLines } from "../../runtime/face/worker.ts";
import { serveProc } from "../../runtime/face/procs.ts";

/** Serves this worker; `parentPort` and `workerData`: the port to its parent and all its parent gave it, given to a worker thread only. */
export async function serveWorker(parentPort?: MessagePort, workerData?: Readonly<Record<string, unknown>>): Promise<void> {
  knowMainThread(parentPort === undefined);
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
  // Only a worker thread talks to its parent over a MessagePort; a process loads no more than it uses.
  if (parentPort) {
    const port = new (await import("../../wire/message-port-transport.ts")).MessagePortTransport(parentPort);
    adoptParentLink({ workerData: workerData ?? {}, port }); // read by upper layers' code in this thread (runtime/face/threads.ts)
    noteThreadChildren(workerData ?? {}); // the subprocesses it starts end with it
    proc.connectVia(parent, port);
  } else proc.connect(parent);
  // The parent set FRAY_LOG_STREAM: "1" when it reads our output and tags it.
  if (config.logStream === "1") captureOutput((s, lines) => sendLogLines(proc, parent, s, lines));
  if (!parentPort) {
    process.stdin.on("end", parentGone);
    process.stdin.on("error", parentGone);
    process.stdin.resume();
  }
}

/** The parent is gone: this worker ends, and so do the subprocesses its tasks and actors started (its process group). */
function parentGone(): void {
  try {
    process.kill(-process.pid, "SIGKILL"); // this process too: the group is the one it leads
  } catch {
    // It leads no group (not started by a fray parent): there is none to end.
  }
  process.exit(0);
}
