// Two copies of fray in one process, its sources and compiled fray (dist/: run `npm run build` first): a driver run
// through tsx loads the compiled runtime of a `fray worker` when it revives an error class that runtime threw. They
// share msgpackr's extension table, so a handle type one copy registered must decode as its class after the other
// loads, though the other never registers it (compiled fray's runtime leaves ObjectRefs to the job layer).
import assert from "node:assert/strict";
import { it } from "node:test";
import { decode, encode, registerHandleType } from "../../src/wire/codec.ts";

/** Stands for a job-layer handle (an ObjectRef): a type the compiled runtime does not register. */
class Held {
  constructor(readonly id: string) {}
}
registerHandleType<Held>({ type: "heldValue", Class: Held, toWire: (h) => h.id, fromWire: (id) => new Held(id as string) });

function roundTrip(value: unknown): unknown {
  const { body, attachments } = encode(value);
  return decode(body, attachments);
}

it("a handle registered by one copy of fray decodes as its class after another copy that does not register it loads", async () => {
  assert.ok(roundTrip(new Held("a")) instanceof Held);
  await import(new URL("../../dist/mesh.js", import.meta.url).href);
  const decoded = roundTrip(new Held("b"));
  assert.ok(decoded instanceof Held, `decoded as ${String(decoded)}, not as the class registered for it`);
  assert.equal(decoded.id, "b");
});
