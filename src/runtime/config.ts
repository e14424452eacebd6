// Every timeout and limit of the runtime: one named setting each, with a
// documented default and an environment override (README lists them all).

function fromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`${name}=${JSON.stringify(raw)} is not a non-negative number of milliseconds; unset it or give e.g. ${name}=${fallback}`);
  }
  return value;
}

export const config = {
  /** How long a dial keeps retrying a peer that is not listening yet. */
  connectTimeoutMs: fromEnv("FRAY_CONNECT_TIMEOUT_MS", 30_000),
  /** How long a spawned process may take to start and report in. */
  procStartTimeoutMs: fromEnv("FRAY_PROC_START_TIMEOUT_MS", 60_000),
  /** How long a message for an actor not spawned (yet) waits for the spawn before failing. */
  spawnWaitMs: fromEnv("FRAY_SPAWN_WAIT_MS", 30_000),
  /** How long `ProcMesh.stop()` waits for a process to exit before SIGKILL. */
  procStopTimeoutMs: fromEnv("FRAY_PROC_STOP_TIMEOUT_MS", 5_000),
};
