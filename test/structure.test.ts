// The shape of the source tree, as CONTRIBUTING.md's "Layout" states it: layers import
// only lower layers, no two modules need each other at run time (value-import
// cycles make load order matter and hide which concept owns what), and every
// file can be read in one sitting.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { it } from "node:test";
import ts from "typescript";

const root = fileURLToPath(new URL("..", import.meta.url));
const src = join(root, "src");
/** A file a reader takes in at one sitting; past it, a file holds more than one concept. */
const MAX_LINES = 350;
/** Files a folder may hold directly: past this it is a flat pile, to be split into folders by mechanism. */
const MAX_FILES_PER_FOLDER = 20;

/** Layers bottom up; a folder may import its own files and those of lower ranks. cluster and queue sit side by side. */
const RANK: Record<string, number> = { wire: 1, runtime: 2, mesh: 3, job: 4, cluster: 5, queue: 5, launchers: 6, cli: 7 };

/** The TypeScript files under `dir` (.cts, CommonJS, too: a worker process's entry). */
const files = (dir: string) =>
  readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => /\.c?ts$/.test(f) && !f.endsWith(".d.ts"))
    .map((f) => join(dir, f));

/** Relative module specifiers a file imports or re-exports, statically. */
function importsOf(file: string, { valuesOnly }: { valuesOnly: boolean }): string[] {
  return importsIn(readFileSync(file, "utf8"), file, { valuesOnly });
}

/** The same, of `text`, the contents of (or compiled from) `file`. */
function importsIn(text: string, file: string, { valuesOnly }: { valuesOnly: boolean }): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?([^;]*?\s+from\s+)?"(\.[^"]+)"/gms)) {
    if (valuesOnly && m[2]) continue;
    found.push(resolve(dirname(file), m[4]));
  }
  // CommonJS (.cts): `import x = require("./y.js")`
  for (const m of text.matchAll(/^\s*import\s+\w+\s*=\s*require\("(\.[^"]+)"\)/gm)) found.push(resolve(dirname(file), m[1]));
  return found;
}

it(`every source file is at most ${MAX_LINES} lines`, () => {
  const long = files(src)
    .map((f) => [relative(root, f), readFileSync(f, "utf8").split("\n").length - 1] as const)
    .filter(([, n]) => n > MAX_LINES);
  assert.deepEqual(long, [], "split these by concept");
});

it(`no folder holds more than ${MAX_FILES_PER_FOLDER} source files directly`, () => {
  const count = new Map<string, number>();
  for (const f of files(src)) count.set(relative(root, dirname(f)), (count.get(relative(root, dirname(f))) ?? 0) + 1);
  const piles = [...count].filter(([, n]) => n > MAX_FILES_PER_FOLDER);
  assert.deepEqual(piles, [], "group these folders' files into sub-folders by mechanism");
});

/**
 * Inside a layer, which sub-folders each sub-folder may import ("." is the layer's own top folder). A
 * sub-folder missing from its layer's table, or an import the table does not allow, fails the test.
 */
const WITHIN: Record<string, Record<string, readonly string[]>> = {
  runtime: {
    // Bottom up: base ← code ← net, ports ← proc ← the subsystems ← runtime.ts, which assembles them.
    ".": ["actors", "base", "bulk", "calls", "metrics", "net", "output", "ports", "proc", "supervision"], // runtime.ts
    // What the layers above import of the runtime, by concern (re-exports only).
    face: [".", "actors", "base", "bulk", "calls", "code", "hosts", "metrics", "net", "output", "ports", "proc", "simulator", "supervision"],
    base: [], // settings, errors, message headers, counters, the event-loop hold
    code: ["base"], // finding and loading user code and error classes
    net: ["base", "code"], // links between processes: listen, dial, authenticate, frame
    ports: ["base", "code"], // where replies and channel values go
    proc: ["base", "code", "net", "ports"], // identity, connections, routing; subsystems attach to it
    output: ["base", "proc"], // worker stdout/stderr, tagged by origin
    supervision: ["base", "net", "proc"], // owned meshes, failures and who hears of them
    calls: ["base", "proc"], // sending and ordering calls, casting down trees
    bulk: ["base", "net", "ports", "proc"], // RemoteBuffers, shards, collective pieces
    actors: ["base", "bulk", "code", "ports", "proc", "supervision"], // the actors of a process, their mailboxes
    metrics: ["actors", "base", "proc", "supervision"], // collecting and exposing metrics, snapshots
    hosts: ["base", "calls", "code", "net", "output", "proc"], // agents that start procs for clients
    simulator: ["base", "calls", "hosts", "net", "output", "proc"], // virtual procs, many to one OS process
  },
  mesh: {
    // Bottom up: shape ← collectives, array, respawn ← "." ← worker. The sub-folders beside "." use its lowest files
    // (errors.ts, mesh-target.ts, mesh-state.ts); the loop test below keeps them from reaching back up through it.
    ".": ["array", "collectives", "respawn", "shape"], // actors, endpoints, ActorMesh, ProcMesh, HostMesh, workers
    shape: [], // a mesh's geometry: extents, slices of it, ValueMesh (a value per rank)
    collectives: [".", "shape"], // reductions, gathers and broadcasts among an actor mesh's ranks
    array: [".", "collectives", "shape"], // DistributedArray: shards kept on the ranks that made them
    respawn: [".", "shape"], // replacing a failed rank in place (ActorMesh.respawn), on its host or another worker
    worker: ["."], // the entry of a worker process or thread
  },
  job: {
    // Bottom up: base ← objects ← streams ← actors ← namespace, . (the contracts); routes ← worker ← tasks ← head ← contexts.
    base: [], // options, errors, the job layer's settings and metrics, the ambient context's slot, where an actor handle's calls go
    objects: ["base"], // ObjectRefs, their streams, the object store, reading refs
    streams: ["base", "objects"], // the items of streaming tasks: buffered at the head, pumped from a worker
    actors: ["base", "objects", "streams"], // handles, ActorRefs, groups, currentActor()
    namespace: ["base", "objects", "actors"], // named and hosted actors, the namespace service
    ".": ["base", "objects", "actors"], // the JobContext contract, and the head's endpoints workers call
    routes: ["base"], // the TaskRoute seam and its routes (thread lane, port lane, call), the batch tasks travel in
    worker: [".", "actors", "base", "objects", "routes", "streams"], // what runs in a worker: the Executor, the context its tasks see
    tasks: [".", "base", "objects", "routes", "worker"], // placing tasks on workers: queue, pool, scheduler, the outbox
    head: [".", "actors", "base", "namespace", "objects", "streams", "tasks", "worker"], // the job's head in the driver: JobHead, HeadActor, actor registry
    contexts: [".", "actors", "base", "head", "objects", "streams", "worker"], // the driver's contexts (sync, mesh-based) and createJobContext
  },
  cluster: {
    // Bottom up: "." (the Cluster contract, requests, job handles, errors) ← replica, environment ← dashboard ← namespace ←
    // local, slurm, client; "." also picks a backend (create.ts), which the loop test keeps from reaching back up.
    ".": ["local", "slurm", "namespace"], // the Cluster contract and requests; create() picks a backend
    replica: ["."], // what every backend runs for a replica: the shell loop, its command, a function's main, why it failed
    environment: ["."], // workspaces, npm packages, setup scripts
    dashboard: [".", "replica"], // the web UI and its API: rows.ts (what it shows) ← metrics, series, failures ← sources ← server; page/ runs in the browser
    namespace: [".", "dashboard"], // the cluster's namespace service (which serves the dashboard)
    client: [".", "namespace"], // Marin's Client API over a Cluster: job handles, namespace actors, hosted actors
    local: [".", "environment", "namespace", "replica"], // the `local` backend: capacity, admission, a supervisor per job, job records
    slurm: [".", "environment", "namespace", "replica"], // the `slurm` backend: one batch script per job, its state from squeue (one query for all its jobs)
  },
};

it("sub-folders of a layer import only the sub-folders their table allows", () => {
  const wrong: string[] = [];
  for (const [layer, table] of Object.entries(WITHIN)) {
    const base = join(src, layer);
    const folderOf = (f: string) => (relative(base, f).includes("/") ? relative(base, f).split("/")[0] : ".");
    for (const file of files(base)) {
      const from = folderOf(file);
      const allowed = table[from];
      if (!allowed) {
        wrong.push(`${relative(root, dirname(file))} is not in the structure test's table for ${layer}: add it with the folders it may import`);
        continue;
      }
      for (const target of importsOf(file, { valuesOnly: false })) {
        if (!target.startsWith(base + "/")) continue;
        const to = folderOf(target);
        if (to !== from && !allowed.includes(to)) wrong.push(`${relative(root, file)} imports ${relative(root, target)}`);
      }
    }
  }
  assert.deepEqual([...new Set(wrong)], []);
});

/** Layers without a loop of imports, types included, among their own files. */
const LOOP_FREE = ["wire", "runtime", "mesh", "job", "cluster", "queue", "launchers", "cli"];

for (const layer of LOOP_FREE) {
  it(`no loop of imports, types included, inside ${layer}`, () => {
    // A loop of type imports ties its files into one unit a reader must take in whole; subsystems
    // take narrow host interfaces instead (e.g. runtime/proc/messaging.ts, job/head-endpoints.ts).
    const base = join(src, layer);
    const graph = new Map(files(base).map((f) => [f, importsOf(f, { valuesOnly: false }).filter((t) => t.startsWith(base + "/"))]));
    assert.deepEqual(
      cyclesOf(graph, (f) => relative(base, f)),
      [],
      `these ${layer} files import each other around a loop; pass a narrow interface instead`,
    );
  });
}

/** The runtime's face: the layers above import the runtime only through these, by concern. */
const RUNTIME_FACE = join(src, "runtime/face");
/** Run by a worker before it loads its runtime, each as a file of its own (compile-cache.ts): imported directly. */
const RUNTIME_BOOT = ["runtime/code/compile-cache", "runtime/code/bundle-script"].map((m) => join(src, m));

it("the layers above the runtime import it only through its face, src/runtime/face/", () => {
  const wrong: string[] = [];
  const runtime = join(src, "runtime");
  for (const file of files(src)) {
    if (file.startsWith(runtime + "/")) continue;
    const text = readFileSync(file, "utf8");
    const dynamic = [...text.matchAll(/import\(\s*"(\.[^"]+)"\s*\)/g)].map((m) => resolve(dirname(file), m[1]));
    for (const target of [...importsIn(text, file, { valuesOnly: false }), ...dynamic]) {
      if (!target.startsWith(runtime + "/") || target.startsWith(RUNTIME_FACE + "/") || RUNTIME_BOOT.includes(target.replace(/\.[cm]?[jt]s$/, ""))) continue;
      wrong.push(`${relative(root, file)} imports ${relative(root, target)}: import it from the runtime's face, src/runtime/face/ (or add it there)`);
    }
  }
  assert.deepEqual([...new Set(wrong)], []);
  // The face holds no code of its own: a reader finds each name where it is made.
  const code = files(RUNTIME_FACE).filter((f) =>
    ts.createSourceFile(f, readFileSync(f, "utf8"), ts.ScriptTarget.ES2022).statements.some((st) => !(ts.isExportDeclaration(st) && st.moduleSpecifier)),
  );
  assert.deepEqual(
    code.map((f) => relative(root, f)),
    [],
    "a face file only re-exports (`export { … } from`)",
  );
});

it("no layer above the runtime builds a runtime message: it calls the runtime's function for it", () => {
  // proc.send(owner, { kind: "buf.drop", … }) ties the caller to another subsystem's wire format; dropBuffer(proc, owner, …) does not.
  const kinds = new Set([...readFileSync(join(src, "runtime/base/messages.ts"), "utf8").matchAll(/readonly kind: "([^"]+)"/g)].map((m) => m[1]));
  const wrong: string[] = [];
  for (const file of files(src)) {
    if (file.startsWith(join(src, "runtime") + "/") || file.startsWith(join(src, "wire") + "/")) continue;
    const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node) => {
      const header = ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === "send" && node.arguments[1];
      if (header && ts.isObjectLiteralExpression(header)) {
        for (const p of header.properties)
          if (ts.isPropertyAssignment(p) && p.name.getText(sf) === "kind" && ts.isStringLiteral(p.initializer) && kinds.has(p.initializer.text))
            wrong.push(`${relative(root, file)} sends a "${p.initializer.text}" message it builds: use the runtime's function for it (src/runtime/face/)`);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  assert.deepEqual(wrong, []);
});

it("layers import only lower layers, and only the CLI goes through the public entry files", () => {
  // src/job.ts, src/mesh.ts, … are the users' entry points and re-export from any layer (fray/dashboard
  // from the job layer up), so a lower layer importing one could load the layers above it.
  const wrong: string[] = [];
  for (const file of files(src)) {
    const from = relative(src, file).split("/")[0];
    if (!(from in RANK)) continue; // an entry file itself
    for (const target of importsOf(file, { valuesOnly: false })) {
      const to = relative(src, target).split("/")[0];
      const entry = !to.includes("/") && to.endsWith(".ts");
      if (entry ? from !== "cli" : to !== from && !(to in RANK && RANK[to] < RANK[from]))
        wrong.push(`${relative(root, file)} imports ${relative(root, target)}`);
    }
  }
  assert.deepEqual(wrong, []);
});

it("no value-import cycle among the compiled modules", () => {
  // The compiled JavaScript is the truth: imports used only as types are gone from it. Each file compiled
  // on its own, as tsc does (dist/ bundles the worker's modules into one, scripts/bundle-runtime.ts).
  const graph = new Map(
    files(src).map((f) => {
      const js = ts.transpileModule(readFileSync(f, "utf8"), { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
      return [f, importsIn(js, f, { valuesOnly: true })];
    }),
  );
  const cycles = cyclesOf(graph, (f) => relative(src, f));
  assert.deepEqual(cycles, [], "these modules import each other (directly or around a loop); pass the dependency in instead");
});

/** The loops of `graph` (Tarjan's strongly connected components of more than one file, or a file importing itself), named by `name`. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>, name: (file: string) => string): string[][] {
  const cycles: string[][] = [];
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const visit = (v: string) => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) === order.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(name(w));
      } while (w !== v);
      if (component.length > 1 || graph.get(v)!.includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!order.has(v)) visit(v);
  return cycles;
}
