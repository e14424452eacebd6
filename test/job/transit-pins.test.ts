// Transit pins (docs/design/object-store.md, "Lifetime and borrowers"): a message carrying a ref of a worker's put
// keeps the value at its owner until its receiver has counted itself, so an owner whose own refs are all garbage
// meanwhile does not free it; the receipt of a message may come before the pin a borrower sent for it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decode, encode } from "../../src/wire/codec.ts";
import { currentProc } from "../../src/runtime/face/procs.ts";
import { ObjectRef, workerOwnerAt } from "../../src/job/objects/object-ref.ts";
import { unpinned } from "../../src/job/objects/transit-pins.ts";
import { OwnedRefs } from "../../src/job/objects/owned-refs.ts";
import { RefCounts } from "../../src/job/objects/ref-counts.ts";
import { gc } from "./held-backends.ts";

/** Collects garbage until finalizers have run a few times. */
async function collect(): Promise<void> {
  for (let round = 0; round < 5; round++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
}

describe("transit pins", () => {
  it("keep a put's value while a message carrying its ref is in flight, and go when it is decoded", async () => {
    const puts = new OwnedRefs(`test-owner-${currentProc().nextId()}`, -1);
    try {
      const owner = workerOwnerAt(currentProc().addr, puts.id, 0);
      // The only ref made here lives in this function: garbage once the message is encoded.
      const { id, message } = (() => {
        const ref = new ObjectRef(currentProc().nextId(), owner);
        puts.put(ref, "value");
        return { id: ref.id, message: encode({ ref }) };
      })();
      await collect();
      assert.deepEqual(puts.counts.countsOf(id), { own: 0, borrowed: 0, pinned: 1 });
      assert.equal(await puts.kept(id), "value", "kept while the message is in flight");
      let { ref } = decode(message.body, message.attachments) as { ref: ObjectRef | null };
      assert.deepEqual(puts.counts.countsOf(id), { own: 1, borrowed: 0, pinned: 0 }, "decoded here: the owner's own ref, the pin gone");
      ref = null;
      await collect();
      assert.equal(ref, null);
      assert.equal(puts.size, 0, "freed once the decoded ref is garbage too");
    } finally {
      puts.close();
    }
  });

  it("are not made for bytes that are not a message (a held value's encoding)", async () => {
    const puts = new OwnedRefs(`test-owner-${currentProc().nextId()}`, -1);
    try {
      const ref = new ObjectRef(currentProc().nextId(), workerOwnerAt(currentProc().addr, puts.id, 0));
      puts.put(ref, 1);
      unpinned(() => encode({ ref }));
      assert.equal(puts.counts.countsOf(ref.id).pinned, 0);
    } finally {
      puts.close();
    }
  });

  it("a receipt that overtakes its borrower's pin drops the pin when it comes", () => {
    const freed: string[] = [];
    const counts = new RefCounts((id) => freed.push(id));
    counts.borrow(["a"], ["t1"]); // the receiver's borrow, naming the pin of the message it decoded
    counts.pin("a", "t1"); // the sender's pin, on its own link
    assert.deepEqual(counts.countsOf("a"), { own: 0, borrowed: 1, pinned: 0 });
    counts.pin("a", "t2");
    counts.returned(["a"]);
    assert.deepEqual(freed, [], "a pin still keeps it");
    counts.received(["t2"]);
    assert.deepEqual(freed, ["a"]);
  });
});
