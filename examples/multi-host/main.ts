// Procs on two hosts, each running `fray worker`, and collectives across them.
// Given no addresses, it starts two workers on 127.0.0.1 itself (and stops them at the end):
//   npx tsx examples/multi-host/main.ts [--length 1048576]
// Across machines, with `fray worker` running on each (see README.md):
//   npx tsx examples/multi-host/main.ts --token-file token tcp://10.0.0.5:22222 tcp://10.0.0.6:22222
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { attachToWorkers } from "fray/mesh";
import { Rank } from "./actors.js";
import { startWorker, stopWorkers, type LocalWorker } from "./workers.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    length: { type: "string", default: String(1 << 20) },
    "procs-per-host": { type: "string", default: "2" },
    "token-file": { type: "string" },
  },
});
const length = Number(values.length);
const perHost = Number(values["procs-per-host"]);
if (!(Number.isInteger(length) && length > 0)) throw new RangeError(`--length must be a positive integer, got ${values.length}`);
if (!(Number.isInteger(perHost) && perHost > 0)) throw new RangeError(`--procs-per-host must be a positive integer, got ${values["procs-per-host"]}`);

let addrs = positionals;
let token = values["token-file"] ? readFileSync(values["token-file"], "utf8").trim() : process.env.FRAY_TOKEN;
let local: LocalWorker[] = [];
let scratch = "";
if (addrs.length === 0) {
  // No addresses: two workers on this machine, sharing a fresh token through a file only this user can read.
  scratch = mkdtempSync(join(tmpdir(), "fray-multi-host-"));
  token = randomBytes(32).toString("hex");
  writeFileSync(join(scratch, "token"), token, { mode: 0o600 });
  local = await Promise.all([startWorker(join(scratch, "token")), startWorker(join(scratch, "token"))]);
  console.log(`started fray worker ${local.map((w) => `pid ${w.child.pid} on ${w.addr}`).join(" and ")}`);
  addrs = local.map((w) => w.addr);
}
if (!token) throw new Error("the workers' token is needed: --token-file PATH or FRAY_TOKEN (the one the workers were started with)");

try {
  const hosts = attachToWorkers(addrs, { token }); // extent {hosts: 2}
  const procs = hosts.spawnProcs({ procs: perHost }); // extent {hosts: 2, procs: perHost}
  const ranks = procs.spawn("ranks", Rank);
  for (const p of (await ranks.where.call()).values())
    console.log(`rank ${p.rank} {hosts: ${p.coords.hosts}, procs: ${p.coords.procs}}: pid ${p.pid} on ${p.host}, started by fray worker pid ${p.worker}`);

  const n = procs.size;
  const t0 = performance.now();
  const sums = (await ranks.sumOfRanks.call(length)).values();
  const ms = performance.now() - t0;
  console.log(
    `allReduce of ${length} floats over ${n} ranks on ${addrs.length} hosts: every rank holds [${sums.join(", ")}] (1 + … + ${n}) (${ms.toFixed(0)} ms)`,
  );
  const perHostSums = (await ranks.sumOfRanks.call(length, ["procs"])).values();
  console.log(`allReduce within each host (dims ["procs"]): [${perHostSums.join(", ")}]`);
  const gathered = (await ranks.gatherRanks.call()).values();
  console.log(
    `allGather: rank 0 holds [${gathered[0].join(", ")}]; all ${gathered.length} ranks agree: ${gathered.every((g) => g.join() === gathered[0].join())}`,
  );
  const root = n - 1;
  const broadcast = (await ranks.fromRoot.call(root, length)).values();
  console.log(`broadcast from rank ${root}: every rank holds [${broadcast.join(", ")}]`);
  await procs.stop();
} finally {
  await stopWorkers(local);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  if (local.length > 0) console.log(`stopped fray worker ${local.map((w) => `pid ${w.child.pid}`).join(" and ")}`);
}
