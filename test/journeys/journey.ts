// What every journey program shares: the backend it runs on (its first argument), and the one line it prints
// at its end — `JOURNEY {json}` — that journeys.test.ts and the chaos run (scripts/chaos.ts) read. A journey is
// a user's program: it imports fray only through its public entry points and asserts its own exact results,
// so a run that prints its line got them right.
import { createJobContext, type JobContext, type JobKind } from "../../src/job.ts";
import { thisHost } from "../../src/mesh.ts";

const KINDS: readonly JobKind[] = ["threads", "processes", "mesh"];

/** The backend named by the program's first argument: one of `kinds` (threads, processes or mesh by default). */
export function journeyKind<K extends string = JobKind>(kinds: readonly K[] = KINDS as readonly string[] as readonly K[]): K {
  const kind = process.argv[2] as K;
  if (!kinds.includes(kind)) throw new Error(`usage: node --import tsx <journey>.ts <${kinds.join("|")}>, got ${String(kind)}`);
  return kind;
}

/** A job context of `kind` with `workers` workers (on `mesh`, a ProcMesh of this host it stops with the job). */
export async function openJob(kind: JobKind, workers: number): Promise<{ ctx: JobContext; close(): Promise<void> }> {
  if (kind !== "mesh") {
    const ctx = createJobContext(kind, { maxWorkers: workers });
    return { ctx, close: () => ctx.shutdown() };
  }
  const procs = thisHost().spawnProcs({ workers });
  const ctx = createJobContext("mesh", { procs });
  return {
    ctx,
    async close() {
      await ctx.shutdown();
      await procs.stop();
    },
  };
}

/**
 * Whether the chaos run (chaos/chaos-run.ts) is hurting this journey: parts that count on a fault of their own
 * being the only one (an exact count of failed requests, say) are left out then.
 */
export function underChaos(): boolean {
  return process.env.JOURNEY_UNDER_CHAOS === "1";
}

/** Prints the journey's summary line: its name, backend and what it counted. */
export function reportJourney(journey: string, kind: string, summary: Record<string, unknown>): void {
  console.log(`JOURNEY ${JSON.stringify({ journey, kind, ...summary })}`);
}

/** The summary a journey program printed, or null if it printed none. */
export function readJourneyLine(stdout: string): Record<string, unknown> | null {
  const line = stdout.split("\n").find((l) => l.startsWith("JOURNEY "));
  return line ? (JSON.parse(line.slice("JOURNEY ".length)) as Record<string, unknown>) : null;
}
