// What BENCHMARKS.md says besides the figures, and how the raw floors send: behaviour a benchmark's code can
// break without any timing (the figures themselves belong to `npm run bench`, not to a test).
import assert from "node:assert/strict";
import { availableParallelism } from "node:os";
import { test } from "node:test";
// @ts-expect-error: bench/ is plain JavaScript with no types
import { tickBatched } from "../bench/lib/baselines.js";
// @ts-expect-error: bench/ is plain JavaScript with no types
import { benchmarksMarkdown, row } from "../bench/lib/report.js";

const tableLine = (md: string, id: string): string => md.split("\n").find((l) => l.startsWith(`| ${id} |`))!;

test("a row whose goal says there is none shows — as met, not yes, whatever the group passed", () => {
  const rows = [
    row("T1", "round trip", "62.6", "µs", "raw 29.1 µs", "2.15× floor", "(no goal)", true),
    row("S2", "call()", "1.24", "ms", "straight 1.34 ms", "0.92× straight", "—", true),
    row("P6", "cold start nested", "122", "ms", "bare 58 ms", "2.08× bare", "(report)", true),
    row("P8", "launch", "16.0", "ms", "spawn 1.3 ms", "12.4×", "≤ 100 ms", true),
    row("P2", "round trip", "105", "µs", "raw 77 µs", "1.36× floor", "≤ 1.3× floor", false),
  ];
  const md = benchmarksMarkdown(rows, { quick: false, commit: "abc1234", notes: "" });
  for (const id of ["T1", "S2", "P6"]) assert.match(tableLine(md, id), /\| — \|$/, id);
  assert.match(tableLine(md, "P8"), /\| yes \|$/);
  assert.match(tableLine(md, "P2"), /\| \*\*no\*\* \|$/);
});

test("BENCHMARKS.md names the commit and the machine above the table, and keeps the notes", () => {
  const notes = "## Notes from earlier runs\n\nkept as written\n";
  const md = benchmarksMarkdown([row("P8", "launch", "16.0", "ms", "b", "r", "≤ 100 ms", true)], {
    quick: false,
    commit: "abc1234 with uncommitted changes",
    notes,
  });
  const head = md.slice(0, md.indexOf("| id |"));
  assert.match(head, /^Commit: abc1234 with uncommitted changes$/m);
  assert.match(head, new RegExp(`^Machine: .+, ${availableParallelism()} cores, [\\d.]+ GiB memory, .+, Node ${process.version}$`, "m"));
  assert.ok(md.endsWith(notes));
});

test("the raw floor for one-way messages batches per tick as fray's transport: one write for a tick's small frames, one per full 64 KiB", async () => {
  const writes: number[] = [];
  const socket = { write: (chunk: Buffer) => writes.push(chunk.length) };
  const send = tickBatched(socket);
  const frame = Buffer.alloc(44);
  for (let i = 0; i < 1000; i++) send(frame);
  assert.deepEqual(writes, [], "nothing is written before the tick ends");
  await new Promise((resolve) => process.nextTick(resolve));
  assert.deepEqual(writes, [44_000]);
  writes.length = 0;
  // 132,000 bytes: the first buffer's room left after the last tick, then a full buffer, both written as they
  // fill; the rest at the tick's end.
  for (let i = 0; i < 3000; i++) send(frame);
  const perBuffer = Math.floor((64 * 1024) / 44) * 44;
  assert.deepEqual(writes, [perBuffer - 44_000, perBuffer]);
  await new Promise((resolve) => process.nextTick(resolve));
  assert.deepEqual(writes, [perBuffer - 44_000, perBuffer, 132_000 - (2 * perBuffer - 44_000)]);
});
