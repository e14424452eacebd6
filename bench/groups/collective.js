// D3: allReduce of 64 MiB of float32 over 4 processes, against the raw Unix-socket copy of the
// same bytes and against the naive allReduce (every rank to rank 0, which broadcasts the sum);
// and kill -9 of a rank mid-allReduce to the other ranks' rejection.
import { Channel, setUnhandledFaultHook, thisHost } from "../../dist/mesh.js";
import { Reducer } from "../fixtures/collective-actors.js";
import { rawCopyMs } from "../lib/baselines.js";
import { quick, report, want } from "../lib/group.js";
import { median } from "../lib/stats.js";

const now = () => performance.timeOrigin + performance.now();
const MiB = 2 ** 20;

if (want("D3")) {
  const bytes = 64 * MiB;
  const iters = quick ? 3 : 7;
  const procs = thisHost().spawnProcs({ gpus: 4 });
  try {
    const ranks = procs.spawn("reducers", Reducer);
    await ranks.time.call(bytes / 4, 1); // warm up: connections, JIT
    const times = (await ranks.time.call(bytes / 4, iters)).values();
    const ours = median(times.flatMap(([t]) => t));
    const naive = median(times.flatMap(([, t]) => t));
    const copies = [];
    for (let i = 0; i < 3; i++) copies.push(await rawCopyMs(bytes));
    const raw = median(copies);
    const gbps = (ms) => (bytes / 2 ** 30 / (ms / 1000)).toFixed(2);
    report(
      "D3",
      `allReduce of 64 MiB float32 over 4 processes (median of ${iters}, alternating with the naive one: reduce to rank 0 + broadcast)`,
      ours.toFixed(0),
      "ms",
      `naive ${naive.toFixed(0)} ms`,
      `${(naive / ours).toFixed(2)}× faster`,
      "≥ 2× naive",
      naive / ours >= 2,
    );
    report(
      "D3",
      "allReduce algorithm bandwidth (64 MiB / time)",
      gbps(ours),
      "GiB/s",
      `raw Unix-socket copy of 64 MiB ${gbps(raw)} GiB/s (${raw.toFixed(0)} ms)`,
      `${(raw / ours).toFixed(2)}× the copy`,
      "(no goal)",
      true,
    );
  } finally {
    await procs.stop();
  }

  // kill -9 of one rank while the others are inside allReduce: time until the last of them rejects.
  const previous = setUnhandledFaultHook(() => {}); // the deaths are the point
  const runs = [];
  for (let run = 0; run < 3; run++) {
    const mesh = thisHost().spawnProcs({ gpus: 4 });
    try {
      const ranks = mesh.spawn("reducers", Reducer);
      await ranks.time.call(1024, 1); // connected, as in a training loop
      const [enteredPort, entered] = Channel.open();
      const [outcomesPort, outcomes] = Channel.open();
      ranks.without.broadcast(2, enteredPort, outcomesPort, 1024);
      for (let i = 0; i < 3; i++) await entered.recv();
      const killedAt = now();
      process.kill(mesh.pids[2], "SIGKILL");
      const got = [await outcomes.recv(), await outcomes.recv(), await outcomes.recv()];
      if (!got.every(([, , supervised]) => supervised)) throw new Error(`a rank's allReduce did not reject with SupervisionError: ${JSON.stringify(got)}`);
      runs.push(Math.max(...got.map(([, at]) => at)) - killedAt);
      entered.close();
      outcomes.close();
    } finally {
      await mesh.stop();
    }
  }
  setUnhandledFaultHook(previous);
  const ms = median(runs);
  report(
    "D3",
    "kill -9 of a rank mid-allReduce → every other rank's call rejects with SupervisionError (median of 3, slowest rank)",
    ms.toFixed(1),
    "ms",
    "",
    "",
    "≤ 1,000 ms",
    ms <= 1000,
  );
}
