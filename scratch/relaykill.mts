process.env.FRAY_CAST_FANOUT = "3";
const { setUnhandledFaultHook, thisHost } = await import("/work/wt/tree/src/mesh.ts");
const { Recorder } = await import("/work/wt/tree/test/fixtures/actors.ts");
const N = 10000;
const mesh = thisHost().spawnProcs({ hosts: 13 });
setUnhandledFaultHook((f) => console.error("fault", f.rank));
const recorders = mesh.spawn("relayed", Recorder);
await recorders.count.call();
const pid = mesh.pids[5];
for (let i = 0; i < N; i++) {
  recorders.record.broadcast(i);
  if (i === N / 2) process.kill(pid, "SIGKILL");
  if (i % 500 === 0) await new Promise((r) => setImmediate(r));
}
console.error("sent all");
for (const r of [0,1,2,3,4,6,7,8,9,10,11,12]) {
  const t = setTimeout(() => console.error("rank", r, "hangs"), 3000);
  const n = await recorders.slice({ hosts: r }).count.callOne();
  clearTimeout(t);
  console.error("rank", r, n);
}
await mesh.stop();
