import { SimulatedJob } from "../dist/mesh.js";
import { Echo } from "../bench/fixtures/actors.js";
const job = new SimulatedJob({ meshes: { hosts: 1024 }, processes: 8 });
const { hosts } = await job.state();
const procs = hosts.spawnProcs();
const mesh = procs.spawn("echo", Echo);
await mesh.initialized;
for (let i = 0; i < 10; i++) await mesh.ping.call();
const t = performance.now();
const times = [];
for (let i = 0; i < 40; i++) { const s = performance.now(); await mesh.ping.call(); times.push(performance.now() - s); }
times.sort((a, b) => a - b);
console.log("p50", times[20].toFixed(1), "fanout", process.env.FRAY_CAST_FANOUT ?? 16, "client cpu", process.cpuUsage().user / 1000);
await procs.stop(); await job.kill();
