const { thisHost } = await import("/work/wt/tree/src/mesh.ts");
const { Recorder } = await import("/work/wt/tree/test/fixtures/actors.ts");
const N = 10000, H = Number(process.env.H ?? 13);
const mesh = thisHost().spawnProcs({ hosts: H });
const r = mesh.spawn("r", Recorder);
await r.count.call();
let t = performance.now();
for (let i = 0; i < N; i++) r.record.broadcast(i);
await r.count.call();
const bcast = performance.now() - t;
const lat: number[] = [];
for (let i = 0; i < 200; i++) { const s = performance.now(); await r.count.call(); lat.push(performance.now() - s); }
lat.sort((a, b) => a - b);
console.log(`fanout=${process.env.FRAY_CAST_FANOUT} H=${H} broadcasts ${(N / bcast * 1000).toFixed(0)}/s call p50 ${lat[100].toFixed(2)} ms`);
await mesh.stop();
