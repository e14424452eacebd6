// Journey 2, serving: an actor group of 3 model replicas streams tokens for 24 concurrent requests, and one
// replica's process is SIGKILLed while they stream.
//  - With restarts (maxRestarts, maxTaskRetries): every request gets every token exactly once, in order (the
//    only part the chaos run runs: its own kills come on top).
//  - Without (processes and mesh, where a replica has a process to kill): requests on the killed replica fail
//    with an error naming the method, the class and the signal; the others complete exactly; later requests
//    go to the live replicas only.
//   node --import tsx test/journeys/serving.ts threads|processes|mesh
import assert from "node:assert/strict";
import type { ActorGroup, JobContext } from "../../src/job.ts";
import { journeyKind, openJob, reportJourney, underChaos } from "./journey.ts";
import { ModelReplica } from "./serving-actors.ts";

const REPLICAS = 3;
const REQUESTS = 24;
const TOKENS = 40;
const KILL_AFTER = 10; // tokens of request 0 read before a replica is killed

const kind = journeyKind();
const { ctx, close } = await openJob(kind, REPLICAS); // a worker per replica: each asks for a cpu of its own

/** Streams `prompt`'s tokens through the group; the tokens read, or the error that ended the stream. */
async function request(group: ActorGroup<ModelReplica>, prompt: string, onToken?: (n: number) => void): Promise<string[] | Error> {
  const tokens: string[] = [];
  try {
    for await (const ref of group.any.generate.remoteStreaming(prompt, TOKENS)) {
      tokens.push(await ctx.get(ref));
      onToken?.(tokens.length);
    }
    return tokens;
  } catch (err) {
    return err as Error;
  }
}

const expected = (prompt: string) => Array.from({ length: TOKENS }, (_, i) => `${prompt}:${i}`);

/** A request's outcome in one line: its error, or its tokens' numbers as runs ("0-9,9-39" read token 9 twice). */
function outcome(got: string[] | Error): string {
  if (got instanceof Error) return `failed: ${got.message}`;
  const runs: string[] = [];
  let start = -1;
  let last = -1;
  for (const n of got.map((token) => Number(token.slice(token.lastIndexOf(":") + 1)))) {
    if (start >= 0 && n === last + 1) last = n;
    else {
      if (start >= 0) runs.push(start === last ? `${start}` : `${start}-${last}`);
      start = last = n;
    }
  }
  if (start >= 0) runs.push(start === last ? `${start}` : `${start}-${last}`);
  return `tokens ${runs.join(",") || "none"}`;
}

/** Runs REQUESTS requests and kills the replica with the given pid once request 0 has KILL_AFTER tokens. */
async function serveAndKill(group: ActorGroup<ModelReplica>, tag: string): Promise<{ results: (string[] | Error)[]; killed: number }> {
  const pids = await ctx.get(group.all.pid.remote());
  const victim = pids[1];
  let killed = false;
  const results = await Promise.all(
    Array.from({ length: REQUESTS }, (_, r) =>
      request(group, `${tag}${r}`, (n) => {
        if (r === 0 && n === KILL_AFTER && !killed) {
          killed = true;
          try {
            process.kill(victim, "SIGKILL");
          } catch (err) {
            // Under chaos its process may be dead already (and the replica started again): killed either way.
            if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
          }
        }
      }),
    ),
  );
  assert.ok(killed, "request 0 never got far enough to kill a replica");
  return { results, killed: victim };
}

async function withRestarts(jobs: JobContext): Promise<number> {
  const group = jobs.createActorGroup(ModelReplica, [], REPLICAS, { maxRestarts: -1, maxTaskRetries: -1, maxConcurrency: 16 });
  await group.waitReady();
  const { results } = await serveAndKill(group, "r");
  for (const [r, got] of results.entries()) assert.deepEqual(got, expected(`r${r}`), `request r${r} with restarts: ${outcome(got)}`);
  return results.length;
}

async function withoutRestarts(jobs: JobContext): Promise<{ failed: number; served: number }> {
  const group = jobs.createActorGroup(ModelReplica, [], REPLICAS, { maxConcurrency: 16, resources: { cpu: 1 } });
  await group.waitReady();
  const { results, killed } = await serveAndKill(group, "n");
  let failed = 0;
  for (const [r, got] of results.entries()) {
    if (got instanceof Error) {
      failed++;
      assert.match(got.message, /generate/, `request n${r}'s error names the method: ${got.message}`);
      assert.match(got.message, /ModelReplica/, `request n${r}'s error names the class: ${got.message}`);
      assert.match(got.message, new RegExp(`${killed}.*SIGKILL|SIGKILL.*${killed}`), `request n${r}'s error names the process and signal: ${got.message}`);
      assert.doesNotMatch(got.message, /fray:|ns-/, `request n${r}'s error speaks in fray's internal names: ${got.message}`);
    } else {
      assert.deepEqual(got, expected(`n${r}`), `request n${r} on a live replica: ${outcome(got)}`);
    }
  }
  assert.ok(failed > 0, "no request was on the killed replica");
  // Later requests go to the live replicas only.
  const later = await Promise.all(Array.from({ length: 6 }, (_, r) => request(group, `later${r}`)));
  for (const [r, got] of later.entries()) assert.deepEqual(got, expected(`later${r}`), `later request ${r}: ${outcome(got)}`);
  assert.equal(group.readyCount, REPLICAS - 1);
  return { failed, served: REQUESTS - failed + later.length };
}

try {
  const served = await withRestarts(ctx);
  // A thread has no process of its own to kill; under chaos, other replicas die too, so no count is exact.
  const without = kind === "threads" || underChaos() ? null : await withoutRestarts(ctx);
  reportJourney("serving", kind, { withRestarts: served, withoutRestarts: without });
} finally {
  await close();
}
