const { thisHost } = await import("/work/wt/tree/src/mesh.ts");
const { Recorder } = await import("/work/wt/tree/test/fixtures/actors.ts");
const N = 10000, H = Number(process.env.H ?? 13);
const mesh = thisHost().spawnProcs({ hosts: H });
const r = mesh.spawn("r", Recorder);
await r.count.call();
for (let round = 0; round < 3; round++) {
let t = performance.now();
for (let i = 0; i < N; i++) r.record.broadcast(i);
const loop = performance.now() - t;
await r.count.call();
const bcast = performance.now() - t;
console.log(`fanout=${process.env.FRAY_CAST_FANOUT} H=${H} loop ${loop.toFixed(0)} ms total ${bcast.toFixed(0)} ms`);
}
await mesh.stop();
