// The chaos run: journeys run one after another, each as its own program, while a seeded injector hurts it
// (faults.ts) every few hundred ms. A journey passes when it still prints its exact results (journey.ts) within
// its bound and leaves no process behind; the run passes when every journey did and /dev/shm is as it was.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, statfsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { readJourneyLine } from "../journey.ts";
import type { JourneySpec } from "../journey-list.ts";
import { FAULTS, journeyPids, type FaultTarget } from "./faults.ts";
import { isAlive } from "../../process-alive.ts";
import { SeededRandom } from "./seeded-random.ts";

export interface ChaosOptions {
  readonly minutes: number;
  readonly seed: number;
  readonly journeys: readonly JourneySpec[];
  /** /dev/shm when it is the run's own small tmpfs (fill-shm and the /dev/shm check need it), else null. */
  readonly shmDir: string | null;
  readonly log: (line: string) => void;
}

export interface JourneyOutcome {
  readonly journey: string;
  readonly kind: string;
  readonly ok: boolean;
  readonly why: string;
  readonly faults: readonly string[];
}

/** How long one journey may run under faults before it counts as hung. */
const JOURNEY_BOUND_MS = 180_000;
/** How long a journey's processes may take to go once its program exited. */
const EXIT_BOUND_MS = 15_000;
/** FRAY_HEARTBEAT_TIMEOUT_MS for the journeys, and how long stop-worker keeps a worker stopped (past it). */
const HEARTBEAT_TIMEOUT_MS = 3_000;

export async function runChaos(options: ChaosOptions): Promise<{ ok: boolean; outcomes: JourneyOutcome[] }> {
  const random = new SeededRandom(options.seed);
  const plan = options.journeys.filter((j) => j.underChaos).flatMap((j) => j.kinds.map((kind) => ({ spec: j, kind })));
  const shmBefore = shmUse(options.shmDir);
  const end = Date.now() + options.minutes * 60_000;
  const outcomes: JourneyOutcome[] = [];
  for (let i = 0; i === 0 || Date.now() < end; i++) {
    const { spec, kind } = plan[i % plan.length];
    const outcome = await runJourney(spec, kind, random, options.shmDir);
    outcomes.push(outcome);
    options.log(`chaos ${outcome.journey}/${outcome.kind}: ${outcome.ok ? "ok" : "FAILED"} ${outcome.why}; faults: ${summarise(outcome.faults)}`);
    if (!outcome.ok) options.log(`  the faults, in order: ${outcome.faults.join("; ")}`);
  }
  let ok = outcomes.every((o) => o.ok);
  const shmAfter = shmUse(options.shmDir);
  if (shmBefore && shmAfter && (shmAfter.files !== shmBefore.files || shmAfter.bytes !== shmBefore.bytes)) {
    options.log(`chaos: /dev/shm held ${shmBefore.files} files, ${shmBefore.bytes} bytes before the run and ${shmAfter.files}, ${shmAfter.bytes} after`);
    ok = false;
  }
  options.log(`chaos: seed ${options.seed}, ${outcomes.length} journeys, ${outcomes.filter((o) => !o.ok).length} failed`);
  return { ok, outcomes };
}

async function runJourney(spec: JourneySpec, kind: string, random: SeededRandom, shmDir: string | null): Promise<JourneyOutcome> {
  const program = fileURLToPath(new URL(`../${spec.journey}.ts`, import.meta.url));
  const started = Date.now();
  const child = spawn(process.execPath, ["--import", "tsx", program, kind, ...(spec.args?.[kind] ?? [])], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, FRAY_HEARTBEAT_TIMEOUT_MS: String(HEARTBEAT_TIMEOUT_MS), JOURNEY_UNDER_CHAOS: "1" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  let running = true;
  void exited.then(() => (running = false));

  const seen = new Set<number>();
  const target: FaultTarget = { root: child.pid!, stopMs: HEARTBEAT_TIMEOUT_MS + 1_000, shmDir, started: new Set() };
  const faults: string[] = [];
  const watch = (async () => {
    while (running) {
      for (const pid of journeyPids(target)) seen.add(pid);
      await sleep(100);
    }
  })();
  const inject = (async () => {
    while (running) {
      await sleep(random.between(300, 2_000));
      if (!running) break;
      const fault = random.pick(FAULTS)!;
      try {
        const did = await fault.apply(target, random);
        if (did) faults.push(`${fault.name}: ${did} at ${((Date.now() - started) / 1000).toFixed(1)} s`);
      } catch (err) {
        faults.push(`${fault.name} could not be applied: ${(err as Error).message}`);
      }
    }
  })();
  const hung = sleep(JOURNEY_BOUND_MS).then(() => "hung" as const);
  const result = await Promise.race([exited, hung]);
  if (result === "hung") for (const pid of journeyPids(target)) process.kill(pid, "SIGKILL");
  const [code, signal] = result === "hung" ? [null, "SIGKILL" as const] : result;
  running = false;
  await Promise.all([watch, inject]);
  const secs = ((Date.now() - started) / 1000).toFixed(1);

  const leftBehind = await processesLeft(seen, child.pid!);
  const outcome = { journey: spec.journey, kind, faults };
  if (result === "hung") return { ...outcome, ok: false, why: `hung: no end within ${JOURNEY_BOUND_MS / 1000} s\n${tail(stderr)}` };
  if (code !== 0) return { ...outcome, ok: false, why: `exited with ${code ?? signal} after ${secs} s\n${tail(stderr)}` };
  if (!readJourneyLine(stdout)) return { ...outcome, ok: false, why: `printed no JOURNEY line in ${secs} s\n${tail(stderr)}` };
  if (leftBehind.length > 0) return { ...outcome, ok: false, why: `left processes behind: ${leftBehind.join(", ")}` };
  return { ...outcome, ok: true, why: `in ${secs} s` };
}

/** The journey's processes still running EXIT_BOUND_MS after its program ended (killed, so the run goes on clean). */
async function processesLeft(seen: Set<number>, root: number): Promise<string[]> {
  const deadline = Date.now() + EXIT_BOUND_MS;
  let alive = [...seen].filter((pid) => pid !== root && isAlive(pid));
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(100);
    alive = alive.filter(isAlive);
  }
  const named = alive.map((pid) => `${pid}`);
  for (const pid of alive) process.kill(pid, "SIGKILL");
  return named;
}

function shmUse(dir: string | null): { files: number; bytes: number } | null {
  if (dir === null) return null;
  const { blocks, bfree, bsize } = statfsSync(dir);
  return { files: readdirSync(dir).length, bytes: (blocks - bfree) * bsize };
}

function summarise(faults: readonly string[]): string {
  if (faults.length === 0) return "none";
  const counts = new Map<string, number>();
  for (const fault of faults) {
    const name = fault.slice(0, fault.indexOf(":"));
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([name, n]) => `${name}×${n}`).join(", ");
}

/** The end of what a journey printed to stderr, stack frames left out. */
function tail(text: string): string {
  return text
    .trim()
    .split("\n")
    .filter((line) => !/^\s+at /.test(line))
    .slice(-16)
    .join("\n");
}
