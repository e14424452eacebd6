import { readdirSync, readFileSync } from "node:fs";
import { SimulatedJob } from "../src/mesh.ts";
import { HostProbe } from "./fixtures/simulated-actors.ts";
const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
const N = Number(process.env.N ?? 1024), P = Number(process.env.P ?? 8);
const job = new SimulatedJob({ meshes: { hosts: N }, processes: P });
const t0 = performance.now();
let t = t0;
const lap = (what: string) => { const n = performance.now(); console.log(`${what}: ${(n - t).toFixed(0)} ms`); t = n; };
try {
  const { hosts } = await job.state(); lap("start processes + virtual workers (state)");
  const procs = hosts.spawnProcs(); await procs.initialized; lap("spawnProcs 1 per host");
  const probes = procs.spawn("probes", HostProbe, 3); await probes.initialized; lap("spawn actor on every rank");
  await probes.where.call(); lap("first call() on every rank");
  console.log(`total to first answer: ${(t - t0).toFixed(0)} ms`);
  const lat: number[] = [];
  for (let i = 0; i < 30; i++) { const s = performance.now(); await probes.where.call(); lat.push(performance.now() - s); }
  lat.sort((a, b) => a - b);
  console.log(`call() on ${N} ranks: p50 ${lat[15].toFixed(1)} ms, min ${lat[0].toFixed(1)}, max ${lat[29].toFixed(1)}`);
  const one: number[] = [];
  const r = probes.slice({ hosts: N - 1 });
  console.log((await r.where.call()).values()); for (let i = 0; i < 200; i++) { const s = performance.now(); await r.where.callOne(); one.push(performance.now() - s); }
  one.sort((a, b) => a - b);
  console.log(`call() on one rank: p50 ${one[100].toFixed(2)} ms`);
  console.log(`client pid ${process.pid}: fds ${fds(process.pid)}, rss ${rss(process.pid).toFixed(0)} MiB`);
  let tf = 0, tr = 0;
  for (const pid of job.pids) { tf += fds(pid); tr += rss(pid); }
  console.log(`workers (${job.pids.length}): fds total ${tf} (per process ~${(tf / job.pids.length).toFixed(0)}), rss total ${tr.toFixed(0)} MiB (per process ~${(tr / job.pids.length).toFixed(0)} MiB)`);
  t = performance.now();
  await procs.stop(); lap("procs.stop()");
} finally {
  await job.kill();
}
