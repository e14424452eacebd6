// Metrics (FRAY_METRICS): what the runtime counts, read back merged from the
// client and its worker processes, in Prometheus text and as JSON. The setting
// is read once per process, so this file turns it on (all of it: the counts the
// default leaves off too) before the runtime loads, and the default and "off"
// cases run in a child process.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

process.env.FRAY_METRICS = "all"; // workers started below inherit it
const { setUnhandledFaultHook, thisHost } = await import("../../src/mesh.ts");
const { createJobContext } = await import("../../src/job.ts");
const { metricsJson } = await import("../../src/runtime/metrics/exposition.ts");
const { countFrameIn, framesIn } = await import("../../src/runtime/base/counters.ts");
const { collectMetrics } = await import("../../src/runtime/runtime.ts");
const { Counter } = await import("../fixtures/counter.ts");
const { add } = await import("../fixtures/tasks.ts");
const { Worker } = await import("../fixtures/supervision-actors.ts");

type Json = Awaited<ReturnType<typeof metricsJson>>;

/** The value of `name` (a metric, or a histogram's `_count`/`_sum`/`_bucket`) whose labels include `labels`; undefined if none. */
function valueOf(json: Json, name: string, labels: Record<string, string | number> = {}): number | undefined {
  const family = json.find((m) => m.name === name || (m.type === ("histogram" as never) && name.startsWith(`${m.name}_`)));
  const sample = family?.values.find(
    (v) =>
      ((v as { metricName?: string }).metricName ?? family.name) === name &&
      Object.entries(labels).every(([k, want]) => (v.labels as Record<string, unknown>)[k] === want),
  );
  return sample?.value;
}

const client = fileURLToPath(new URL("./metrics-client.ts", import.meta.url));

function runClient(env: Record<string, string>, n: number): ReturnType<typeof spawnSync> {
  return spawnSync(process.execPath, ["--import", "tsx", client, String(n)], {
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 120_000,
    killSignal: "SIGKILL",
  });
}

describe("metrics", () => {
  it("1,000 calls to an actor in a worker process read 1,000 calls and messages, and some of them timed, in the merged metrics", async () => {
    await using procs = thisHost().spawnProcs({ procs: 1 });
    const counter = procs.spawn("counted", Counter, 0);
    for (let i = 0; i < 1000; i++) await counter.incr.callOne(1);
    assert.equal(await counter.get.callOne(), 1000);
    const { json, processes, missing } = await collectMetrics();
    assert.deepEqual(missing, []);
    assert.equal(processes.length, 2, `processes: ${processes.join(", ")}`);
    const incr = { class: "Counter", endpoint: "incr" };
    assert.equal(valueOf(json, "fray_endpoint_calls_total", incr), 1000); // counted in the worker
    // How many are timed depends on how fast they came (see the spaced calls below, and FRAY_METRICS_DURATION_SAMPLE=1).
    const timed = valueOf(json, "fray_endpoint_duration_seconds_count", incr)!;
    assert.ok(timed >= 1 && timed <= 1000, `timed ${timed}`);
    assert.equal(valueOf(json, "fray_endpoint_duration_seconds_bucket", { ...incr, le: "+Inf" }), timed);
    assert.ok(valueOf(json, "fray_endpoint_duration_seconds_sum", incr)! > 0);
    assert.equal(valueOf(json, "fray_messages_received_total", incr), 1000);
    assert.equal(valueOf(json, "fray_messages_sent_total", incr), 1000); // counted in this process
    assert.ok(valueOf(json, "fray_message_bytes_sent_total", incr)! > 0);
    assert.equal(valueOf(json, "fray_endpoint_errors_total", incr), undefined);
    // This process's own metrics saw the sends, not the calls.
    const own = await metricsJson();
    assert.equal(valueOf(own, "fray_messages_sent_total", incr), 1000);
    assert.equal(valueOf(own, "fray_endpoint_calls_total", incr), undefined);
  });

  it("a burst of 5,000 one-way messages with calls among them is counted in full: every message, call and frame, on both sides", async () => {
    await using procs = thisHost().spawnProcs({ procs: 1 });
    const counter = procs.spawn("burst", Counter, 0);
    await counter.initialized;
    /** The sum of `name` over every label set. */
    const total = (json: Json, name: string) => json.find((m) => m.name === name)?.values.reduce((a, v) => a + v.value, 0) ?? 0;
    const msgFrames = (json: Json, name: string) => valueOf(json, name, { kind: "msg" }) ?? 0;
    const before = await metricsJson();
    const gets: Array<Promise<number>> = [];
    for (let i = 0; i < 5000; i++) {
      counter.incr.broadcast(1);
      if (i % 500 === 499) gets.push(counter.get.callOne());
    }
    assert.deepEqual(await Promise.all(gets), [500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500, 5000]);
    const { json } = await collectMetrics();
    const own = await metricsJson(); // after the merged read: what the worker counted is the difference
    const incr = { class: "Counter", endpoint: "incr" };
    assert.equal(valueOf(json, "fray_messages_received_total", incr), 5000);
    assert.equal(valueOf(json, "fray_endpoint_calls_total", incr), 5000);
    assert.equal(valueOf(json, "fray_endpoint_calls_total", { class: "Counter", endpoint: "get" }), 10);
    // One call frame per message to one actor, each counted by kind: sent here, received in the worker.
    const sent = total(own, "fray_messages_sent_total") - total(before, "fray_messages_sent_total");
    assert.ok(sent >= 5010, `sent ${sent}`);
    assert.equal(msgFrames(own, "fray_frames_sent_total") - msgFrames(before, "fray_frames_sent_total"), sent);
    const workerReceived = total(json, "fray_messages_received_total") - total(own, "fray_messages_received_total");
    assert.equal(msgFrames(json, "fray_frames_received_total") - msgFrames(own, "fray_frames_received_total"), workerReceived);
    // Back to back, one call in up to FRAY_METRICS_DURATION_SAMPLE (256) is timed: not each of 5,000.
    const timed = valueOf(json, "fray_endpoint_duration_seconds_count", incr)!;
    assert.ok(timed >= 1 && timed < 500, `timed ${timed}`);
  });

  it("calls of an endpoint that come more than a millisecond apart are each timed", async () => {
    await using procs = thisHost().spawnProcs({ procs: 1 });
    const counter = procs.spawn("spaced", Counter, 0);
    for (let i = 0; i < 10; i++) {
      await counter.incr.callOne(1);
      await new Promise((resolve) => setTimeout(resolve, 3)); // the spacing is what is tested, not a wait for an event
    }
    const { json } = await collectMetrics();
    assert.equal(valueOf(json, "fray_endpoint_duration_seconds_count", { class: "Counter", endpoint: "incr" }), 10);
  });

  it("the merged metrics parse as Prometheus text exposition, each sample of a declared family", async () => {
    await using procs = thisHost().spawnProcs({ procs: 2 });
    const counters = procs.spawn("texted", Counter, 0);
    for (let i = 0; i < 10; i++) await counters.incr.call();
    const { text } = await collectMetrics();
    const types = new Map<string, string>();
    const helped = new Set<string>();
    const samples: Array<[string, string, number]> = [];
    for (const line of text.split("\n")) {
      if (line === "") continue;
      let m = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) \S.*$/.exec(line);
      if (m) {
        helped.add(m[1]);
        continue;
      }
      m = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (m) {
        types.set(m[1], m[2]);
        continue;
      }
      m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? (\S+)$/.exec(line);
      assert.ok(m, `not a Prometheus text line: ${JSON.stringify(line)}`);
      const value = Number(m[3].replace(/^\+Inf$/, "Infinity"));
      assert.ok(!Number.isNaN(value), `not a number: ${line}`);
      samples.push([m[1], m[2] ?? "", value]);
    }
    for (const [name] of samples) {
      const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, "");
      assert.ok(types.has(family) && helped.has(family), `${name} has no # TYPE and # HELP`);
    }
    const calls = samples.find(
      ([name, labels]) => name === "fray_endpoint_calls_total" && labels.includes('class="Counter"') && labels.includes('endpoint="incr"'),
    );
    assert.equal(calls?.[2], 20); // 10 calls to each of 2 actors
    assert.equal(types.get("fray_endpoint_duration_seconds"), "histogram");
  });

  it("an actor that dies counts as a failure of its class, its endpoint's error, and its respawn as a restart", async () => {
    await using procs = thisHost().spawnProcs({ procs: 1 });
    let failed!: () => void;
    const failure = new Promise<void>((resolve) => (failed = resolve));
    const previous = setUnhandledFaultHook(() => failed());
    try {
      const workers = procs.spawn("dying", Worker);
      await workers.initialized;
      workers.boom.broadcast(); // nobody waits for a reply: the actor dies of it, and its owner (this process) hears
      // The death notice comes before the answer to a later call (FIFO per link); that call keeps this client waiting.
      await assert.rejects(workers.ping.callOne());
      await failure;
      await workers.respawn(0);
      assert.equal(await workers.ping.callOne(), 0);
      const { json } = await collectMetrics();
      assert.equal(valueOf(json, "fray_actor_failures_total", { class: "Worker" }), 1);
      assert.equal(valueOf(json, "fray_actor_restarts_total", { class: "Worker" }), 1);
      assert.equal(valueOf(json, "fray_endpoint_errors_total", { class: "Worker", endpoint: "boom" }), 1);
      assert.equal(valueOf(json, "fray_endpoint_calls_total", { class: "Worker", endpoint: "ping" }), 1);
    } finally {
      setUnhandledFaultHook(previous);
    }
  });

  it("a processes job running 50 tasks counts 50 tasks done, none pending or running", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 2 });
    const refs = Array.from({ length: 50 }, (_, i) => ctx.createTask(add, [i, 1]));
    assert.deepEqual(
      await ctx.get(refs),
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    const { json } = await collectMetrics();
    assert.equal(valueOf(json, "fray_tasks_done_total"), 50);
    assert.equal(valueOf(json, "fray_tasks_pending"), 0);
    assert.equal(valueOf(json, "fray_tasks_running"), 0);
    assert.equal(valueOf(json, "fray_tasks_failed_total") ?? 0, 0);
    assert.ok(valueOf(json, "fray_object_store_entries")! >= 0);
  });

  it("unset, FRAY_METRICS counts calls, messages received and frames sent, not what =all adds; FRAY_METRICS_DURATION_SAMPLE=1 times every call", () => {
    const env = { ...process.env, FRAY_METRICS_DURATION_SAMPLE: "1" };
    delete env.FRAY_METRICS;
    const { status, stdout, stderr } = spawnSync(process.execPath, ["--import", "tsx", client, "100"], {
      env,
      encoding: "utf8",
      timeout: 120_000,
      killSignal: "SIGKILL",
    });
    assert.equal(status, 0, String(stderr));
    const out = JSON.parse(String(stdout).trim().split("\n").pop()!) as { json: Json; value: number };
    assert.equal(out.value, 100);
    const incr = { class: "Counter", endpoint: "incr" };
    assert.equal(valueOf(out.json, "fray_endpoint_calls_total", incr), 100);
    assert.equal(valueOf(out.json, "fray_messages_received_total", incr), 100);
    assert.equal(valueOf(out.json, "fray_endpoint_duration_seconds_count", incr), 100);
    assert.ok(valueOf(out.json, "fray_frames_sent_total", { kind: "msg" })! >= 100, "the client's call frames are counted");
    assert.ok(valueOf(out.json, "fray_frame_bytes_sent_total", { kind: "msg" })! > 0);
    for (const name of [
      "fray_messages_sent_total",
      "fray_message_bytes_sent_total",
      "fray_message_bytes_received_total",
      "fray_frames_received_total",
      "fray_frame_bytes_received_total",
    ]) {
      assert.equal(valueOf(out.json, name), undefined, `${name} has values`);
      const family = out.json.find((m) => m.name === name);
      assert.match(family?.help ?? "", /\(counted with FRAY_METRICS=all\)$/, `${name} is served, its help saying how to count it`);
    }
  });

  it("FRAY_METRICS_DURATION_SAMPLE below 1 is refused, naming the setting", () => {
    const { status, stderr } = runClient({ FRAY_METRICS_DURATION_SAMPLE: "0" }, 1);
    assert.notEqual(status, 0);
    assert.match(String(stderr), /FRAY_METRICS_DURATION_SAMPLE/);
  });

  it("with FRAY_METRICS=0 a client and its worker count nothing, though the metrics are still served", () => {
    const { status, stdout, stderr } = runClient({ FRAY_METRICS: "0" }, 100);
    assert.equal(status, 0, String(stderr));
    const out = JSON.parse(String(stdout).trim().split("\n").pop()!) as { json: Json; processes: string[]; value: number };
    assert.equal(out.value, 100);
    assert.equal(out.processes.length, 2);
    assert.ok(
      out.json.some((m) => m.name === "fray_endpoint_calls_total"),
      "the families are declared",
    );
    for (const name of [
      "fray_endpoint_calls_total",
      "fray_messages_sent_total",
      "fray_messages_received_total",
      "fray_frames_sent_total",
      "fray_frames_received_total",
      "fray_endpoint_duration_seconds_count",
    ]) {
      assert.equal(valueOf(out.json, name), undefined, `${name} has values`);
    }
  });

  it("FRAY_METRICS other than 1, all or 0 is refused, naming the setting and what to give", () => {
    const { status, stderr } = runClient({ FRAY_METRICS: "yes" }, 1);
    assert.notEqual(status, 0);
    assert.match(
      String(stderr),
      /FRAY_METRICS="yes" is not 0 \(metrics off\), 1 \(on\) or all \(.*\); give FRAY_METRICS=1, FRAY_METRICS=all or FRAY_METRICS=0/,
    );
  });

  it("frames of kinds that take turns are each counted under their own kind", () => {
    // The counter keeps the last kind's counts at hand; a change of kind must not add to the previous one's.
    for (let i = 0; i < 3; i++) {
      countFrameIn("test.a", 10);
      countFrameIn("test.a", 1);
      countFrameIn("test.b", 100);
    }
    countFrameIn("test.c", 1000);
    countFrameIn("test.a", 10);
    assert.deepEqual(framesIn.get("test.a"), { n: 7, bytes: 43 });
    assert.deepEqual(framesIn.get("test.b"), { n: 3, bytes: 300 });
    assert.deepEqual(framesIn.get("test.c"), { n: 1, bytes: 1000 });
  });
});
