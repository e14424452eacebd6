// Entry of a worker process of compiled fray whose node loads ES modules with its own require()
// (host-agent.ts chooses it; else bootstrap.ts): CommonJS, because node starts a CommonJS entry with ~6 ms
// less CPU than an ES module one, and loads the runtime's ES modules through require(), which does not
// start node's asynchronous module loader (~4 ms more; actors' modules are loaded so too, esm-require.ts): a
// worker spends ~107 ms of CPU to its first reply, bare node ~76 (benchmark P6, cold start). In this order: the
// caches first, then the runtime (`import x = require()` runs where it stands).
import compileCache = require("../../runtime/code/compile-cache.js");
import bundleScript = require("../../runtime/code/bundle-script.js");

compileCache.enableCompileCache();
bundleScript.cacheAsWorker();
import workerRuntime = require("./worker-runtime.js");

workerRuntime.serveWorker().catch((err: unknown) => {
  console.error("fray: this worker failed:", err);
  process.exit(1);
});
