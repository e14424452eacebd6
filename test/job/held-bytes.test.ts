// The bytes a process holds for others to read, under its cap (src/job/objects/held-bytes.ts): the least recently
// read go to disk past it and come back when read; a disk that fails a spill (full) fails the value that needed the
// room, with an error naming it, the task that made it and the fix, and loses nothing held before.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HeldBytes, type SpillDisk } from "../../src/job/objects/held-bytes.ts";

/** A spill disk in memory that can be made full (writes then fail as a full disk's do). */
class FakeDisk implements SpillDisk {
  readonly files = new Map<string, Uint8Array>();
  full = false;
  makeDir(): string {
    return "/spill";
  }
  write(path: string, bytes: Uint8Array): void {
    if (this.full) throw Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), { code: "ENOSPC" });
    this.files.set(path, bytes.slice());
  }
  read(path: string): Uint8Array {
    return this.files.get(path)!.slice();
  }
  remove(path: string): void {
    this.files.delete(path);
  }
}

const filled = (n: number, fill: number) => new Uint8Array(n).fill(fill);
const origin = (id: string) => ({ refId: id, taskName: `make_${id}`, worker: 0 });

describe("HeldBytes", () => {
  it("spills the least recently read values past its cap and restores them exactly when read", () => {
    const disk = new FakeDisk();
    const store = new HeldBytes(disk, () => 100);
    const a = store.hold(origin("a"), filled(40, 1));
    const b = store.hold(origin("b"), filled(40, 2));
    assert.deepEqual(a.bytes(), filled(40, 1)); // a is now the most recently read
    const c = store.hold(origin("c"), filled(40, 3));
    assert.equal(disk.files.size, 1, "b, the least recently read, went to disk");
    assert.deepEqual(store.counts(), { held: 80, spilled: 40 });
    assert.deepEqual(b.bytes(), filled(40, 2), "b comes back exactly");
    assert.deepEqual(store.counts(), { held: 80, spilled: 40 }, "and a, now least recently read, made room for it");
    assert.deepEqual([a.bytes(), c.bytes()], [filled(40, 1), filled(40, 3)]);
    for (const held of [a, b, c]) held.released();
    assert.deepEqual(store.counts(), { held: 0, spilled: 0 });
    assert.equal(disk.files.size, 0, "released values leave nothing on disk");
  });

  it("a value larger than the cap is refused, naming its ref, its task and the setting to raise", () => {
    const store = new HeldBytes(new FakeDisk(), () => 100);
    assert.throws(
      () => store.hold(origin("big"), filled(101, 0)),
      (err: Error) => {
        assert.match(err.message, /ObjectRef\(big\), the result of task make_big/);
        assert.match(err.message, /101 bytes/);
        assert.match(err.message, /FRAY_OBJECT_STORE_BYTES=100/);
        return true;
      },
    );
    assert.deepEqual(store.counts(), { held: 0, spilled: 0 });
  });

  it("a full spill disk fails the value that needed room, naming it, its task and the fix; nothing held is lost", () => {
    const disk = new FakeDisk();
    const store = new HeldBytes(disk, () => 100);
    const a = store.hold(origin("a"), filled(60, 1));
    disk.full = true;
    assert.throws(
      () => store.hold(origin("b"), filled(60, 2)),
      (err: Error) => {
        assert.match(err.message, /ObjectRef\(b\), the result of task make_b/);
        assert.match(err.message, /ENOSPC/);
        assert.match(err.message, /disk is full/);
        assert.match(err.message, /FRAY_OBJECT_SPILL_DIR/);
        return true;
      },
    );
    assert.deepEqual(a.bytes(), filled(60, 1), "a is still held");
    assert.deepEqual(store.counts(), { held: 60, spilled: 0 });
    disk.full = false;
    const b = store.hold(origin("b"), filled(60, 2));
    disk.full = true;
    // a is on disk and the disk is full: reading it still works, though b cannot make room for it.
    assert.deepEqual(a.bytes(), filled(60, 1));
    assert.deepEqual(b.bytes(), filled(60, 2));
  });
});
