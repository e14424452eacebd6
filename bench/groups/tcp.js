// T1/T2: actor round trip and one-way messages over authenticated TCP on loopback, to a host of a
// ProcessJob (a local `fray worker`), against raw framed TCP.
import { ProcessJob } from "../../dist/launchers.js";
import { Echo, Sink } from "../fixtures/actors.js";
import { rawEchoPeer, rawThroughput } from "../lib/baselines.js";
import { report, scale, want } from "../lib/group.js";
import { interleavedMedians, perSecondSince, thousands } from "../lib/stats.js";

if (want("T1", "T2")) {
  const n = Math.round(3000 * scale);
  const job = new ProcessJob({ meshes: { hosts: 1 } });
  const { hosts } = await job.state();
  const procs = hosts.spawnProcs({ procs: 1 });
  const echo = procs.spawn("echo", Echo);
  const raw = await rawEchoPeer(true);
  const [floor, p50] = await interleavedMedians(n, [raw.roundTrip, () => echo.ping.callOne()], { warmup: 300 });
  raw.close();
  report(
    "T1",
    "actor round trip over TCP loopback to a worker host (p50)",
    p50.toFixed(1),
    "µs",
    `raw TCP ping-pong ${floor.toFixed(1)} µs`,
    `${(p50 / floor).toFixed(2)}× floor`,
    "(no goal)",
    null,
  );
  const m = Math.round(100_000 * scale);
  // The floor sends as fray does (one synchronous loop, batched per tick); one write() per frame is shown beside it.
  const rawRate = await rawThroughput(m, true, true);
  const perWrite = await rawThroughput(m, true);
  const sink = procs.spawn("sink", Sink);
  await sink.initialized;
  const t = performance.now();
  for (let i = 0; i < m; i++) sink.recv.broadcast(i);
  await sink.count.callOne();
  const rate = perSecondSince(m, t);
  report(
    "T2",
    "one-way messages over TCP loopback to a worker host",
    thousands(rate),
    "msg/s",
    `raw TCP framed, batched per tick as fray's transport ${thousands(rawRate)} msg/s; one write() per frame ${thousands(perWrite)} msg/s`,
    `${(rate / rawRate).toFixed(2)}× floor`,
    "(no goal)",
    null,
  );
  await echo.stop();
  await sink.stop();
  await procs.stop();
  await job.kill();
}
