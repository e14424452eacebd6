// The route every batch can take (src/job/routes/call-route.ts), seen through the TaskRoute seam
// (src/job/routes/task-route.ts) with its worker's endpoint faked: a batch of plain arguments goes one-way and
// tells its worker of its functions; one whose arguments might not arrive goes as an acknowledged call whose
// failure fails its tasks; one the codec refuses goes task by task. And a task's fields in a batch, by name.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Endpoint } from "../../src/mesh/endpoint.ts";
import type { CodeLocation } from "../../src/runtime/code/code-locator.ts";
import { CallRoute } from "../../src/job/routes/call-route.ts";
import { SlotUse, TASK_FIELDS, TaskBatch, TaskField } from "../../src/job/routes/task-batch.ts";
import type { TaskRoute } from "../../src/job/routes/task-route.ts";
import { ToldFunctions, type NamedFunctions, type Telling } from "../../src/job/routes/told-functions.ts";

const ADD: CodeLocation = { url: "file:///tasks.js", exportName: "add" };

type Sent = { how: "broadcast" | "callOne"; fns: NamedFunctions; tasks: unknown[]; telling: Telling };

/** A CallRoute whose worker's runBatch records what it is sent; `refuse`: its sends throw, as the codec does for an argument it cannot send. */
function callRoute(options: { refuse?: boolean; reject?: Error } = {}) {
  const sent: Sent[] = [];
  const one: string[] = [];
  const failed: Array<{ held: readonly string[]; err: unknown }> = [];
  const endpoint = {
    broadcast(fns: NamedFunctions, tasks: unknown[], telling: Telling) {
      if (options.refuse) throw new TypeError("cannot send a function");
      sent.push({ how: "broadcast", fns: [...fns], tasks, telling });
    },
    callOne(fns: NamedFunctions, tasks: unknown[], telling: Telling) {
      if (options.refuse) throw new TypeError("cannot send a function");
      sent.push({ how: "callOne", fns: [...fns], tasks, telling });
      return options.reject ? Promise.reject(options.reject) : Promise.resolve();
    },
  } as unknown as Endpoint<[NamedFunctions, unknown[], Telling], void>;
  const route: TaskRoute<string> = new CallRoute<string>(new ToldFunctions(), {
    runBatch: () => endpoint,
    one: (held) => one.push(held),
    failed: (held, err) => failed.push({ held, err }),
  });
  return { route, sent, one, failed };
}

describe("the call route", () => {
  it("takes every batch: one of plain arguments one-way, telling its functions, so the next names them by number", () => {
    const { route, sent } = callRoute();
    assert.equal(route.send(0, new TaskBatch(ADD, "a", 0, [1, 2], null, SlotUse.take, "a"), true), true);
    assert.equal(route.send(0, new TaskBatch(ADD, "b", 1, [3, 4], null, SlotUse.take, "b"), false), true);
    assert.deepEqual(
      sent.map((s) => [s.how, s.fns, s.telling]),
      [
        ["broadcast", [ADD.url, "add"], [0]],
        ["broadcast", [0, 0], null],
      ],
    );
  });

  it("sends a batch whose arguments might not arrive as an acknowledged call, whose failure fails the batch's tasks", async () => {
    const died = new Error("worker died");
    const { route, sent, failed } = callRoute({ reject: died });
    const batch = new TaskBatch(ADD, "a", 0, [new Uint8Array(4)], null, SlotUse.none, "a");
    batch.add(ADD, "b", 1, [1], null, SlotUse.none, "b");
    assert.equal(batch.acked, true);
    route.send(0, batch, true);
    assert.deepEqual(
      sent.map((s) => [s.how, s.telling]),
      [["callOne", null]],
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(failed, [{ held: ["a", "b"], err: died }]);
  });

  it("sends each task of a batch the codec refuses on its own, and tells nothing", () => {
    const { route, one, sent } = callRoute({ refuse: true });
    const batch = new TaskBatch(ADD, "a", 0, [1], null, SlotUse.take, "a");
    batch.add(ADD, "b", 1, [2], null, SlotUse.take, "b");
    assert.equal(route.send(0, batch, true), true);
    assert.deepEqual(one, ["a", "b"]);
    assert.deepEqual(sent, []);
  });
});

describe("a task in a batch", () => {
  it("is its fields at their names, TASK_FIELDS apart", () => {
    const other: CodeLocation = { url: "file:///tasks.js", exportName: "square" };
    const batch = new TaskBatch(ADD, "a", 7, [1, 2], { A: "1" }, SlotUse.take, null);
    batch.add(other, "b", 8, [3], null, SlotUse.takeAndReport, null);
    const at = TASK_FIELDS;
    assert.deepEqual(
      [batch.tasks[at + TaskField.id], batch.tasks[at + TaskField.number], batch.tasks[at + TaskField.fn], batch.tasks[at + TaskField.args]],
      ["b", 8, 1, [3]],
    );
    assert.deepEqual([batch.tasks[TaskField.env], batch.tasks[at + TaskField.slot]], [{ A: "1" }, SlotUse.takeAndReport]);
    assert.deepEqual(batch.fns, [ADD.url, "add", other.url, "square"]);
  });
});
