// Entry of a worker thread, and of a worker process whose node loads code through loader hooks (tsx,
// a user's --import): its runtime is loaded with import(), which they follow. A worker process of
// compiled fray starts from process-entry.cts instead (host-agent.ts chooses).
import { isMainThread, workerData, type MessagePort } from "node:worker_threads";
import { cacheAsWorker } from "../../runtime/code/bundle-script.ts";
import { enableCompileCache } from "../../runtime/code/compile-cache.ts";

// A thread shares its process's module loading: only the main thread may turn the compile cache on.
if (isMainThread) enableCompileCache();
cacheAsWorker();
const { serveWorker } = await import("./worker-runtime.ts");
const data = workerData as ({ frayParentPort?: MessagePort } & Record<string, unknown>) | null;
await serveWorker(data?.frayParentPort, data ?? undefined);
