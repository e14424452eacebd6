// The bytes a process holds for others to read, under its cap (src/job/objects/held-bytes.ts): the least recently
// read go to disk past it and come back when read; a disk that fails a spill (full) fails the value that needed the
// room, with an error naming it, the task that made it and the fix, and loses nothing held before.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HeldBytes, type SpillDisk } from "../../src/job/objects/held-bytes.ts";
import type { PagedBytes } from "../../src/runtime/face/buffers.ts";

/** A spill disk in memory that can be made full (writes then fail as a full disk's do). */
class FakeDisk implements SpillDisk {
  readonly files = new Map<string, Uint8Array>();
  full = false;
  makeDir(): string {
    return "/spill";
  }
  write(path: string, slices: Iterable<Uint8Array>): void {
    if (this.full) throw Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), { code: "ENOSPC" });
    this.files.set(path, new Uint8Array(Buffer.concat([...slices].map((s) => Buffer.from(s))))); // each slice copied before the next is made
  }
  read(path: string, offset: number, dst: Uint8Array): void {
    dst.set(this.files.get(path)!.subarray(offset, offset + dst.byteLength));
  }
  remove(path: string): void {
    this.files.delete(path);
  }
}

/** /dev/shm files in memory (as ShmBytes makes them) that can be made full or absent; `open` lists those not closed. */
class FakeShm {
  readonly files = new Map<string, Uint8Array>();
  readonly open = new Set<string>();
  full = false;
  absent = false;
  #made = 0;
  readonly make = (size: number) => {
    if (this.absent) throw Object.assign(new Error("ENOENT: no such file or directory, open '/dev/shm/fray-held-x'"), { code: "ENOENT" });
    const ref = `/proc/1/fd/${++this.#made}#1`;
    const bytes = new Uint8Array(size);
    this.files.set(ref, bytes);
    this.open.add(ref);
    return {
      ref,
      write: (offset: number, part: Uint8Array) => {
        if (this.full) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
        bytes.set(part, offset);
      },
      read: (offset: number, dst: Uint8Array) => dst.set(bytes.subarray(offset, offset + dst.byteLength)),
      close: () => this.open.delete(ref),
    };
  };
}

const MiB = 2 ** 20;
const view = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
/** Whether `actual` holds exactly `expected`'s bytes (deepEqual takes seconds on MiBs). */
function same(actual: Uint8Array | undefined, expected: Uint8Array, message: string): void {
  assert.ok(actual !== undefined && view(actual).equals(view(expected)), message);
}
/** A value as held-encoding.ts lays one out: a head, a gap of padding, and a large part; its bytes joined. */
function layout(size: number, fill: number) {
  const head = filled(16, 200 + fill);
  const big = filled(size - 24, fill);
  const joined = new Uint8Array(size);
  joined.set(head, 0);
  joined.set(big, 24);
  return {
    value: {
      byteLength: size,
      parts: [
        [0, head],
        [24, big],
      ] as const,
    },
    joined,
  };
}

const filled = (n: number, fill: number) => new Uint8Array(n).fill(fill);
/** All of a held value's bytes, read as a reader in its process reads them. */
function all(held: PagedBytes): Uint8Array {
  const out = new Uint8Array(held.byteLength);
  held.read(0, out);
  return out;
}
const origin = (id: string) => ({ refId: id, taskName: `make_${id}`, worker: 0 });

describe("HeldBytes", () => {
  it("spills the least recently read values past its cap and restores them exactly when read", () => {
    const disk = new FakeDisk();
    const store = new HeldBytes(disk, () => 100);
    const a = store.hold(origin("a"), filled(40, 1));
    const b = store.hold(origin("b"), filled(40, 2));
    assert.deepEqual(all(a), filled(40, 1)); // a is now the most recently read
    const c = store.hold(origin("c"), filled(40, 3));
    assert.equal(disk.files.size, 1, "b, the least recently read, went to disk");
    assert.deepEqual(store.counts(), { held: 80, shm: 0, spilled: 40 });
    assert.deepEqual(all(b), filled(40, 2), "b comes back exactly");
    assert.deepEqual(store.counts(), { held: 80, shm: 0, spilled: 40 }, "and a, now least recently read, made room for it");
    assert.deepEqual([all(a), all(c)], [filled(40, 1), filled(40, 3)]);
    for (const held of [a, b, c]) held.released();
    assert.deepEqual(store.counts(), { held: 0, shm: 0, spilled: 0 });
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
    assert.deepEqual(store.counts(), { held: 0, shm: 0, spilled: 0 });
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
    assert.deepEqual(all(a), filled(60, 1), "a is still held");
    assert.deepEqual(store.counts(), { held: 60, shm: 0, spilled: 0 });
    disk.full = false;
    const b = store.hold(origin("b"), filled(60, 2));
    disk.full = true;
    // a is on disk and the disk is full: reading it still works, though b cannot make room for it.
    assert.deepEqual(all(a), filled(60, 1));
    assert.deepEqual(all(b), filled(60, 2));
  });
});

describe("HeldBytes in /dev/shm", () => {
  it("keeps a value of 1 MiB or more in /dev/shm, not the heap, written there part by part, and counts it under the cap", () => {
    const shm = new FakeShm();
    const store = new HeldBytes(
      new FakeDisk(),
      () => 4 * MiB,
      () => shm.make,
    );
    const { value, joined } = layout(2 * MiB, 1);
    const a = store.hold(origin("a"), value);
    assert.deepEqual(store.counts(), { held: 2 * MiB, shm: 2 * MiB, spilled: 0 });
    assert.equal(shm.open.size, 1);
    same(shm.files.get(a.file()!), joined, "its /dev/shm file holds the whole value, padding zeros included");
    const middle = new Uint8Array(1000);
    a.read(MiB - 500, middle);
    same(middle, joined.subarray(MiB - 500, MiB + 500), "a ranged read reads that range");
    assert.equal(a.view(0, 1000), null, "a value in /dev/shm has no view in this process's memory: a reply reads its range");
    const small = store.hold(origin("small"), filled(MiB - 8, 3));
    assert.equal(small.file(), null, "a smaller value stays in the heap");
    assert.deepEqual(store.counts(), { held: 3 * MiB - 8, shm: 2 * MiB, spilled: 0 });
    a.released();
    small.released();
    assert.equal(shm.open.size, 0, "a released value's file is closed");
    assert.deepEqual(store.counts(), { held: 0, shm: 0, spilled: 0 });
  });

  it("spills the least recently read /dev/shm values past the cap (closing their files) and brings them back there exactly when read", () => {
    const disk = new FakeDisk();
    const shm = new FakeShm();
    const store = new HeldBytes(
      disk,
      () => 6 * MiB,
      () => shm.make,
    );
    const a = layout(4 * MiB, 1);
    const b = layout(4 * MiB, 2);
    const heldA = store.hold(origin("a"), a.value);
    const heldB = store.hold(origin("b"), b.value);
    assert.deepEqual(store.counts(), { held: 4 * MiB, shm: 4 * MiB, spilled: 4 * MiB }, "two 4 MiB values under a 6 MiB cap: one spilled");
    assert.equal(shm.open.size, 1, "a's file was closed when it was spilled");
    assert.equal(disk.files.size, 1);
    same([...disk.files.values()][0], a.joined, "a went to disk whole");
    same(all(heldA), a.joined, "a comes back exactly");
    assert.deepEqual(store.counts(), { held: 4 * MiB, shm: 4 * MiB, spilled: 4 * MiB }, "and b made room for it");
    assert.equal(shm.open.size, 1, "b's file was closed when it was spilled");
    same(shm.files.get(heldA.file()!), a.joined, "a is in /dev/shm again");
    same(all(heldB), b.joined, "b comes back exactly");
  });

  it("a /dev/shm that is full, absent or turned off keeps the value in the heap, counted there, and leaves no file open", () => {
    for (const how of ["full", "absent", "off"] as const) {
      const shm = new FakeShm();
      shm.full = how === "full";
      shm.absent = how === "absent";
      const store = new HeldBytes(
        new FakeDisk(),
        () => 8 * MiB,
        () => (how === "off" ? null : shm.make),
      );
      const { value, joined } = layout(2 * MiB, 4);
      const held = store.hold(origin("a"), value);
      assert.equal(held.file(), null, how);
      same(all(held), joined, how);
      const range = held.view(MiB - 500, 1000);
      assert.ok(range !== null, `${how}: a range of a value in the heap is given in place`);
      same(range, joined.subarray(MiB - 500, MiB + 500), how);
      assert.deepEqual(store.counts(), { held: 2 * MiB, shm: 0, spilled: 0 }, how);
      assert.equal(shm.open.size, 0, how);
    }
  });
});
