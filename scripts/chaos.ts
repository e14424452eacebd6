// Runs the journeys (test/journeys) under seeded faults: workers SIGKILLed and SIGSTOPped, TCP connections
// dropped, /dev/shm filled; prints a line per journey and exits non-zero if any journey failed, hung, left a
// process behind, or /dev/shm was not as before. As root it runs in a mount namespace of its own with a small
// tmpfs for /dev/shm (so filling it hurts nobody else); otherwise it says so and leaves shared memory alone.
//   npm run chaos -- --minutes 10 --seed 42
import { spawnSync } from "node:child_process";
import { Command, InvalidArgumentError } from "commander";
import { runChaos } from "../test/journeys/chaos/chaos-run.ts";
import { JOURNEYS } from "../test/journeys/journey-list.ts";

const SHM_SIZE = "256m";
const INSIDE = "FRAY_CHAOS_NAMESPACE";

function positive(what: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${what} must be a positive number, got ${JSON.stringify(value)}`);
    return n;
  };
}

const program = new Command("chaos")
  .description("run the journeys while a seeded injector hurts them")
  .option("--minutes <n>", "how long to start journeys for (each runs to its end)", positive("--minutes"), 2)
  .option("--seed <n>", "the seed of the faults' choices (a failed run prints it)", (v) => Math.trunc(positive("--seed")(v)), Date.now() % 1_000_000)
  .option("--journeys <names>", "comma-separated journeys to run (default: all that run under chaos)")
  .parse();
const options = program.opts<{ minutes: number; seed: number; journeys?: string }>();

const names = options.journeys?.split(",");
const journeys = names ? JOURNEYS.filter((j) => names.includes(j.journey)) : JOURNEYS;
const unknown = names?.filter((n) => !JOURNEYS.some((j) => j.journey === n)) ?? [];
if (unknown.length > 0) program.error(`unknown journey ${unknown.join(", ")}: known are ${JOURNEYS.map((j) => j.journey).join(", ")}`);

if (process.env[INSIDE] === undefined && process.getuid?.() === 0) {
  // Again, in a mount namespace of its own whose /dev/shm is a small tmpfs.
  const inner = `mount -t tmpfs -o size=${SHM_SIZE},mode=1777 tmpfs /dev/shm && exec "$@"`;
  const self = [process.execPath, ...process.execArgv, ...process.argv.slice(1)];
  const run = spawnSync("unshare", ["--mount", "--propagation", "private", "sh", "-c", inner, "sh", ...self], {
    stdio: "inherit",
    env: { ...process.env, [INSIDE]: "1" },
  });
  process.exit(run.status ?? 1);
}

const isolated = process.env[INSIDE] === "1";
if (!isolated) console.log("chaos: not root, so /dev/shm is shared: fill-shm is off and /dev/shm is not checked");
const { ok } = await runChaos({
  minutes: options.minutes,
  seed: options.seed,
  journeys,
  shmDir: isolated ? "/dev/shm" : null,
  log: (line) => console.log(line),
});
if (!ok) console.log(`chaos: FAILED — run again with --seed ${options.seed}`);
process.exit(ok ? 0 : 1);
