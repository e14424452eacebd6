// R1: failure detection — kill -9 to rejected calls and to supervise(); a hung (SIGSTOPped) process at the default heartbeat.
import { Channel, thisProc } from "../../dist/mesh.js";
import { Owner } from "../fixtures/actors.js";
import { quick, report, want } from "../lib/group.js";
import { median } from "../lib/stats.js";

const now = () => performance.timeOrigin + performance.now();

if (want("R1")) {
  const runs = [];
  for (let i = 0; i < 5; i++) {
    const [port, reports] = Channel.open();
    const owner = thisProc().spawn(`owner-${i}`, Owner, port);
    const { mesh, pids } = await owner.start.callOne(2);
    const inflight = mesh.slice({ procs: 1 }).hang.callOne().catch(now);
    const killedAt = now();
    process.kill(pids[1], "SIGKILL");
    const rejectedAt = await inflight;
    const { at: supervisedAt } = await reports.recv();
    runs.push([rejectedAt - killedAt, supervisedAt - killedAt]);
    reports.close();
    await owner.stopProcs.callOne();
  }
  const reject = median(runs.map((r) => r[0]));
  const supervise = median(runs.map((r) => r[1]));
  report("R1", "kill -9 → in-flight call rejected (median of 5)", reject.toFixed(1), "ms", "Monarch: 10 s poll", "", "≤ 1,000 ms", reject <= 1000);
  report("R1", "kill -9 → supervise() called (median of 5)", supervise.toFixed(1), "ms", "Monarch: 10 s poll", "", "≤ 1,000 ms", supervise <= 1000);

  if (!quick) {
    const [port, reports] = Channel.open();
    const owner = thisProc().spawn("owner-hung", Owner, port);
    const { pids } = await owner.start.callOne(1);
    const stoppedAt = now();
    process.kill(pids[0], "SIGSTOP");
    const { at } = await reports.recv();
    reports.close();
    await owner.stopProcs.callOne();
    report(
      "R1",
      "SIGSTOP → hung process reported at the default heartbeat (30 s timeout, 1 s interval)",
      ((at - stoppedAt) / 1000).toFixed(1),
      "s",
      "",
      "",
      "timeout + 1 interval",
      at - stoppedAt <= 31_500,
    );
  }
}
