// pollUntil: the one way src/ waits for something that sends no event. Checks
// behaviour (what it resolves with, how often it asks, what its timeout says),
// never how long anything took.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pollUntil, PollTimeoutError } from "../../src/runtime/base/poll.ts";

const bound = "FRAY_EXAMPLE_MS=5";

describe("pollUntil", () => {
  it("resolves with the first answer that is not undefined, null or false, asking until then", async () => {
    const answers = [undefined, null, false, "ready", "later"];
    let calls = 0;
    assert.equal(await pollUntil(() => answers[calls++], { intervalMs: 1, deadlineMs: 60_000, what: "x", bound }), "ready");
    assert.equal(calls, 4);
  });

  it("runs an async check one call at a time", async () => {
    let running = 0;
    let overlapped = false;
    let calls = 0;
    const result = await pollUntil(
      async () => {
        overlapped ||= running > 0;
        running++;
        await new Promise((r) => setImmediate(r));
        running--;
        return ++calls === 5 ? calls : undefined;
      },
      { intervalMs: 0, deadlineMs: 60_000, what: "x", bound },
    );
    assert.equal(result, 5);
    assert.equal(overlapped, false);
  });

  it("rejects with what the check throws, and asks no more", async () => {
    let calls = 0;
    const broken = new Error("pod failed");
    await assert.rejects(
      pollUntil(
        () => {
          calls++;
          if (calls === 2) throw broken;
          return undefined;
        },
        { intervalMs: 1, deadlineMs: 60_000, what: "x", bound },
      ),
      (err) => err === broken,
    );
    assert.equal(calls, 2);
  });

  it("at the deadline rejects with a TimeoutError naming what it awaited, how far it got, what bounds it, and the hint", async () => {
    let calls = 0;
    const err: unknown = await pollUntil(() => void calls++, {
      intervalMs: 1,
      deadlineMs: 20,
      what: () => `3 pods to run (${calls} checks)`,
      bound,
      hint: "see kubectl get pods",
    }).catch((e: unknown) => e);
    assert.ok(err instanceof PollTimeoutError);
    assert.equal(err.name, "TimeoutError");
    assert.equal(err.message, `gave up waiting for 3 pods to run (${calls} checks) after 20 ms (FRAY_EXAMPLE_MS=5); see kubectl get pods`);
  });

  it("a hint that is a function is asked at the deadline, so it can name what the checks found", async () => {
    let last = "";
    const err: unknown = await pollUntil(() => void (last = "job 7"), {
      intervalMs: 1,
      deadlineMs: 0,
      what: "x",
      bound,
      hint: () => `scancel ${last.split(" ")[1]}`,
    }).catch((e: unknown) => e);
    assert.ok(err instanceof PollTimeoutError);
    assert.equal(err.message, "gave up waiting for x after 0 ms (FRAY_EXAMPLE_MS=5); scancel 7");
  });

  it("with no time left still checks once", async () => {
    let calls = 0;
    await assert.rejects(
      pollUntil(() => void calls++, { intervalMs: 1, deadlineMs: 0, what: "x", bound }),
      PollTimeoutError,
    );
    assert.equal(calls, 1);
    assert.equal(await pollUntil(() => "now", { intervalMs: 1, deadlineMs: 0, what: "x", bound }), "now");
  });

  it("passes the attempt number to an interval function (a backoff)", async () => {
    const attempts: number[] = [];
    let calls = 0;
    await pollUntil(() => ++calls === 4 || undefined, { intervalMs: (attempt) => (attempts.push(attempt), 1), deadlineMs: 60_000, what: "x", bound });
    assert.deepEqual(attempts, [0, 1, 2]);
  });

  it("rejects a deadline that is not a non-negative number, naming what bounds it", async () => {
    for (const deadlineMs of [-1, Number.NaN]) {
      await assert.rejects(
        pollUntil(() => true, { intervalMs: 1, deadlineMs, what: "x", bound: "the startTimeoutMs option" }),
        {
          name: "RangeError",
          message: `the startTimeoutMs option: ${deadlineMs} is not a non-negative number of milliseconds`,
        },
      );
    }
  });
});
