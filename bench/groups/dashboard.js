// O2: the dashboard's /api/state for a 1,024-actor mesh (8 packed worker processes), p50 over
// sequential requests; baseline: a bare node:http server sending the same bytes.
import { createServer } from "node:http";
import { startDashboard } from "../../dist/dashboard.js";
import { thisHost } from "../../dist/mesh.js";
import { Idle } from "../fixtures/actors.js";
import { quick, report, want } from "../lib/group.js";
import { interleavedMedians } from "../lib/stats.js";

if (want("O2")) {
  const procs = thisHost().spawnProcs({ workers: 1024 }, { processes: 8 });
  const idle = procs.spawn("idle", Idle);
  await idle.initialized;
  const token = "bench-token";
  const dashboard = await startDashboard({ token });
  const headers = { authorization: `Bearer ${token}` };
  const first = await fetch(`${dashboard.url}/api/state`, { headers });
  const body = await first.text();
  const members = JSON.parse(body).runtime.meshes.find((m) => m.name === "idle").members.length;
  if (first.status !== 200 || members !== 1024) throw new Error(`O2: /api/state answered ${first.status} with ${members} members of 'idle'`);
  const bare = createServer((_, res) => res.writeHead(200, { "content-type": "application/json" }).end(body));
  await new Promise((resolve) => bare.listen({ host: "127.0.0.1", port: 0 }, resolve));
  const bareUrl = `http://127.0.0.1:${bare.address().port}/`;
  const n = quick ? 50 : 500;
  const [dashUs, bareUs] = await interleavedMedians(
    n,
    [async () => (await fetch(`${dashboard.url}/api/state`, { headers })).text(), async () => (await fetch(bareUrl)).text()],
    { warmup: 20 },
  );
  const p50 = dashUs / 1000;
  report(
    "O2",
    `dashboard /api/state for a 1,024-actor mesh (${(body.length / 1024).toFixed(0)} KiB JSON), p50`,
    p50.toFixed(2),
    "ms",
    `bare node:http, same body: ${(bareUs / 1000).toFixed(2)} ms`,
    (dashUs / bareUs).toFixed(1),
    "≤ 50 ms",
    p50 <= 50,
  );
  bare.close();
  await dashboard.close();
  await procs.stop();
}
