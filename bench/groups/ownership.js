// H5: the metadata every ref costs its owner. A task's nested `run` and its `put` are owned by its worker's owner
// (docs/design/object-store.md, "Who owns what"): a nested submit is still a message to the head, which schedules it
// and sends its result to the owner; the parent's get asks the head nothing. The head never hears of a put. This measures tiny tasks submitted from
// tasks on 2 worker processes (each parent submits its share and gets the values), against the same number submitted
// from the driver; and small `put`s (and their `get`s) from tasks against the same in the driver.
import { createJobContext } from "../../dist/job.js";
import { add } from "../fixtures/tasks.js";
import { putNested, submitNested } from "../fixtures/nested-tasks.js";
import { report, scale, want } from "../lib/group.js";
import { median, thousands } from "../lib/stats.js";

const N = Math.round(20_000 * scale);
const rounds = 5;
const expected = (n) => (n * (n - 1)) / 2 + n;

/** Rate (per s) of `round()`, which handles N refs; the median of `rounds`, alternating with `other`. */
async function rates(first, second) {
  const [a, b] = [[], []];
  for (let r = 0; r < rounds; r++) {
    for (const [fn, out] of [
      [first, a],
      [second, b],
    ]) {
      const t = performance.now();
      await fn();
      out.push(N / ((performance.now() - t) / 1000));
    }
  }
  return [median(a), median(b)];
}

if (want("H5")) {
  const ctx = createJobContext("processes", { maxWorkers: 2 });
  try {
    const half = N / 2;
    const check = (sum, want, what) => {
      if (sum !== want) throw new Error(`${what}: sum ${sum}, expected ${want}`);
    };
    const fromTasks = async () => {
      const sums = await ctx.get([ctx.run(submitNested, half), ctx.run(submitNested, half)]);
      check(sums[0] + sums[1], 2 * expected(half), "nested tasks");
    };
    const fromDriver = async () => {
      const values = await ctx.get(Array.from({ length: N }, (_, i) => ctx.run(add, i % half, 1)));
      check(
        values.reduce((s, v) => s + v, 0),
        2 * expected(half),
        "driver's tasks",
      );
    };
    await fromTasks(); // warm: both workers, the code located
    await fromDriver();
    const [nested, driver] = await rates(fromTasks, fromDriver);
    report(
      "H5",
      `tiny tasks submitted from tasks (2 parents on 2 worker processes, ${thousands(half)} each, values got by the parent; ` +
        `each ref owned by its parent's worker, scheduled by the head; median of ${rounds})`,
      thousands(Math.round(nested)),
      "tasks/s",
      `the same ${thousands(N)} tasks submitted from the driver ${thousands(Math.round(driver))} tasks/s`,
      `${(nested / driver).toFixed(2)}× the driver's`,
      "(no goal: what one owner takes)",
      null,
    );
    const putsFromTasks = async () => {
      const sums = await ctx.get([ctx.run(putNested, half), ctx.run(putNested, half)]);
      check(sums[0] + sums[1], (2 * (half * (half - 1))) / 2, "nested puts");
    };
    const putsFromDriver = async () => {
      const values = await ctx.get(Array.from({ length: N }, (_, i) => ctx.put(i % half)));
      check(
        values.reduce((s, v) => s + v, 0),
        (2 * (half * (half - 1))) / 2,
        "driver's puts",
      );
    };
    await putsFromTasks();
    const [puts, driverPuts] = await rates(putsFromTasks, putsFromDriver);
    report(
      "H5",
      `small put + get from tasks (2 tasks on 2 worker processes, ${thousands(half)} each; ` +
        `each ref owned by its worker, the head never told; median of ${rounds})`,
      thousands(Math.round(puts)),
      "puts/s",
      `the same ${thousands(N)} puts in the driver ${thousands(Math.round(driverPuts))} puts/s`,
      `${(puts / driverPuts).toFixed(2)}× the driver's`,
      "(no goal: what a worker's own puts cost)",
      null,
    );
  } finally {
    await ctx.shutdown();
  }
}
