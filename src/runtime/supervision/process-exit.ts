// How a worker process ended, carried as fields of the error that reports it
// (hosts/host-agent.ts sets them), so that every layer above — whose own
// errors wrap that one, across processes too — can name the process and its
// signal in its caller's terms instead of repeating the runtime's wording.

/** A worker process's end: its pid, and the signal that killed it or the code it exited with. */
export interface ProcessExit {
  readonly pid: number;
  readonly signal: string | null;
  readonly exitCode: number | null;
}

/** The process exit reported by `error` or one of its causes, if any. */
export function processExitIn(error: unknown): ProcessExit | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    const { pid, signal, exitCode } = e as Error & Partial<Record<"pid" | "signal" | "exitCode", unknown>>;
    if (typeof pid === "number" && (typeof signal === "string" || typeof exitCode === "number")) {
      return { pid, signal: typeof signal === "string" ? signal : null, exitCode: typeof exitCode === "number" ? exitCode : null };
    }
  }
  return undefined;
}

/** "process 123 was killed by SIGKILL", "process 123 exited with code 1". */
export function describeProcessExit({ pid, signal, exitCode }: ProcessExit): string {
  return `process ${pid} ${signal ? `was killed by ${signal}` : `exited with code ${exitCode}`}`;
}
