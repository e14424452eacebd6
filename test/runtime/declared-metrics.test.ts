// A layer above the runtime declares its own metrics (src/job/base/metrics.ts): the runtime's registry, loaded
// on first read, exposes each with what its read returns then, declared before the registry loaded or after.
import assert from "node:assert/strict";
import { it } from "node:test";
import { declareMetric } from "../../src/runtime/face/metrics.ts";

it("declared metrics are exposed with their values when read, whenever declared", async () => {
  const things = { made: 3, held: 2 };
  declareMetric({ type: "counter", name: "fray_test_things_made_total", help: "Things made", read: () => things.made });
  const { metricsText } = await import("../../src/runtime/metrics/registry.ts");
  declareMetric({ type: "gauge", name: "fray_test_things_held", help: "Things held", read: () => things.held });
  things.made = 5;
  const text = await metricsText();
  assert.match(text, /^# TYPE fray_test_things_made_total counter\nfray_test_things_made_total 5$/m);
  assert.match(text, /^# TYPE fray_test_things_held gauge\nfray_test_things_held 2$/m);
});

it("a metric is declared once: the same again (a module loaded twice) is read from the last, another one is refused", async () => {
  declareMetric({ type: "gauge", name: "fray_test_twice", help: "Twice", read: () => 1 });
  declareMetric({ type: "gauge", name: "fray_test_twice", help: "Twice", read: () => 2 });
  assert.throws(() => declareMetric({ type: "counter", name: "fray_test_twice", help: "Other", read: () => 3 }), /fray_test_twice is declared twice/);
  const { metricsText } = await import("../../src/runtime/metrics/registry.ts");
  assert.match(await metricsText(), /^fray_test_twice 2$/m);
});

it("a declared metric with a label is exposed with one value per label value", async () => {
  const byPath = { shm: 7, tcp: 0 };
  declareMetric({ type: "counter", name: "fray_test_moved_bytes_total", help: "Bytes moved, by path", label: "path", read: () => byPath });
  declareMetric({ type: "gauge", name: "fray_test_open", help: "Open, by kind", label: "kind", read: () => ({ file: 2 }) });
  const { metricsText } = await import("../../src/runtime/metrics/registry.ts");
  byPath.tcp = 4;
  const text = await metricsText();
  assert.match(text, /^fray_test_moved_bytes_total\{path="shm"\} 7$/m);
  assert.match(text, /^fray_test_moved_bytes_total\{path="tcp"\} 4$/m);
  assert.match(text, /^fray_test_open\{kind="file"\} 2$/m);
});
