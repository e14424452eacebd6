// Heartbeats: a process pings a peer over its link and hears the answer (a "ping" message each process answers, proc.ts),
// because a peer that is stopped, wedged or cut off the network keeps its connection open: only silence shows it. A
// parent watches its worker processes this way, a client the hosts it attached to (../hosts/), and a RemoteBuffer reader
// the host of the buffer's owner while it reads (../bulk/buffer-transfer.ts).
import { config } from "../base/config.ts";
import { timerFired } from "../base/fault-points.ts";
import type { ProcMessaging } from "./messaging.ts";

/**
 * Pings `addr` every FRAY_HEARTBEAT_INTERVAL_MS (at most half the timeout) once `ready`; calls `onHung` when it has
 * not answered for `timeoutMs()`, FRAY_HEARTBEAT_TIMEOUT_MS unless given. Returns the stop.
 */
export function heartbeat(
  proc: ProcMessaging,
  addr: string,
  ready: Promise<void>,
  onHung: (silentMs: number) => void,
  timeoutMs = () => config.heartbeatTimeoutMs,
): () => void {
  let lastHeard = Date.now();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const port = proc.openPort(() => (lastHeard = Date.now()));
  const stop = () => {
    stopped = true;
    if (timer) clearInterval(timer);
    timer = null;
    proc.closePort(port);
  };
  ready.then(() => {
    if (stopped) return; // stopped before its peer was up (a transfer that ended at once, say)
    lastHeard = Date.now();
    timer = setInterval(
      () => {
        const silent = Date.now() - lastHeard;
        if (silent > timeoutMs()) {
          stop();
          timerFired("heartbeat-lapsed", () => onHung(silent))(); // a test may hold its time still (docs/faults.md)
          return;
        }
        proc.send(addr, { kind: "ping", reply: { addr: proc.addr, id: port } });
      },
      Math.min(config.heartbeatIntervalMs, timeoutMs() / 2),
    );
    timer.unref();
  }, stop);
  return stop;
}
