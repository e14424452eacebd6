// Every timeout and limit of the runtime: one named setting each, with a
// documented default and an environment override (README lists them all).
// Read when used, so a process can change them before it starts workers
// (which inherit the environment).
import { MAX_FRAME_BYTES } from "../wire/frame.ts";

function fromEnv(name: string, fallback: number, unit = "milliseconds"): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`${name}=${JSON.stringify(raw)} is not a non-negative number of ${unit}; unset it or give e.g. ${name}=${fallback}`);
  }
  return value;
}

export const config = {
  /** How long a dial keeps retrying a peer that is not listening yet. */
  get connectTimeoutMs() {
    return fromEnv("FRAY_CONNECT_TIMEOUT_MS", 30_000);
  },
  /** How long a spawned process may take to start and report in. */
  get procStartTimeoutMs() {
    return fromEnv("FRAY_PROC_START_TIMEOUT_MS", 60_000);
  },
  /** How long a message for an actor not spawned (yet) waits for the spawn before failing. */
  get spawnWaitMs() {
    return fromEnv("FRAY_SPAWN_WAIT_MS", 30_000);
  },
  /** How long a cluster job's processes get after SIGTERM before SIGKILL (`terminate()`). */
  get terminateGraceMs() {
    return fromEnv("FRAY_TERMINATE_GRACE_MS", 5_000);
  },
  /** How long `ProcMesh.stop()` waits for a process to exit before SIGKILL. */
  get procStopTimeoutMs() {
    return fromEnv("FRAY_PROC_STOP_TIMEOUT_MS", 5_000);
  },
  /** How long an actor's `cleanup()` may run when it stops. */
  get cleanupTimeoutMs() {
    return fromEnv("FRAY_CLEANUP_TIMEOUT_MS", 5_000);
  },
  /** How long a new connection has to authenticate before it is closed. */
  get authTimeoutMs() {
    return fromEnv("FRAY_AUTH_TIMEOUT_MS", 10_000);
  },
  /** How often a parent checks that each worker process still answers. */
  get heartbeatIntervalMs() {
    return fromEnv("FRAY_HEARTBEAT_INTERVAL_MS", 1_000);
  },
  /**
   * How long a worker may go without answering before it is declared hung,
   * killed, and reported as failed. Generous by default: a worker's event loop
   * is busy while an endpoint computes synchronously.
   */
  get heartbeatTimeoutMs() {
    return fromEnv("FRAY_HEARTBEAT_TIMEOUT_MS", 30_000);
  },
  /**
   * How long a remote host's worker may go unheard before the host counts as
   * gone (a cut network closes no connection). Short: the worker process only
   * serves, so silence means the host or the network is down.
   */
  get hostTimeoutMs() {
    return fromEnv("FRAY_HOST_TIMEOUT_MS", 4_000);
  },
  /**
   * Largest frame a process sends or accepts over a socket (one message: its
   * arguments or value with their typed arrays). A peer announcing a bigger
   * frame is disconnected before anything is allocated for it.
   */
  get maxFrameBytes() {
    const bytes = fromEnv("FRAY_MAX_FRAME_BYTES", 2 ** 30, "bytes");
    if (bytes > MAX_FRAME_BYTES) throw new RangeError(`FRAY_MAX_FRAME_BYTES=${bytes} is more than the wire format's ${MAX_FRAME_BYTES} bytes; give at most that`);
    return bytes;
  },
};
