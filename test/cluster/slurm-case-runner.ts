// Run by slurm.test.ts on the Slurm submit host: runs slurm-cases.ts,
// slurm-rl-cases.ts, slurm-client-cases.ts, slurm-adoption-cases.ts and slurm-object-cases.ts, one after the other (node:test's
// run(), its spec report on stderr) and prints one JSON line per case on stdout,
// {name, ok, message}, the name prefixed by its suites' ("suite > test"). A suite
// that fails by itself (a hook) is a line too; so is the file, if it cannot run.
import { fileURLToPath } from "node:url";
import { run } from "node:test";
import { spec } from "node:test/reporters";

export interface CaseResult {
  readonly name: string;
  readonly ok: boolean;
  readonly message?: string;
}

interface TestEventData {
  readonly name: string;
  readonly nesting: number;
  readonly details?: { readonly type?: string; readonly error?: Error & { failureType?: string } };
}

const cases = ["./slurm-cases.ts", "./slurm-rl-cases.ts", "./slurm-client-cases.ts", "./slurm-adoption-cases.ts", "./slurm-object-cases.ts"].map((file) =>
  fileURLToPath(new URL(file, import.meta.url)),
);
// Each file's bound, as `node --test --test-timeout` sets it on Node 20; one file at a time, as they share the cluster.
const stream = run({ files: cases, timeout: 180_000, concurrency: 1 });
const path: string[] = [];
stream.on("test:start", (data: TestEventData) => path.splice(data.nesting, Infinity, data.name));
const report = (ok: boolean) => (data: TestEventData) => {
  const error = data.details?.error;
  if (!ok) process.exitCode = 1;
  if (data.details?.type === "suite" && (ok || error?.failureType === "subtestsFailed")) return;
  const name = [...path.slice(0, data.nesting), data.name].join(" > ");
  const cause = error?.cause instanceof Error ? error.cause : error;
  const result: CaseResult = ok ? { name, ok } : { name, ok, message: cause?.message ?? String(cause) };
  process.stdout.write(`${JSON.stringify(result)}\n`);
};
stream.on("test:pass", report(true));
stream.on("test:fail", report(false));
stream.compose(new spec()).pipe(process.stderr);
