// Worker processes ask glibc's malloc for transparent huge pages (src/runtime/hosts/huge-pages.ts), so a large value
// read into fresh memory does not pay a page fault per 4 KiB; a user's own choice in GLIBC_TUNABLES is kept.
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { thisHost } from "../../src/mesh.ts";
import { withHugePages } from "../../src/runtime/hosts/huge-pages.ts";
import { EnvReader } from "../fixtures/actors.ts";

describe("huge pages for worker processes", () => {
  it("adds glibc.malloc.hugetlb=1 to GLIBC_TUNABLES on Linux, after the tunables already there", () => {
    assert.equal(withHugePages({ A: "1" }, "linux").GLIBC_TUNABLES, "glibc.malloc.hugetlb=1");
    assert.equal(withHugePages({ GLIBC_TUNABLES: "glibc.malloc.arena_max=2" }, "linux").GLIBC_TUNABLES, "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
  });

  it("keeps a user's own glibc.malloc.hugetlb, and changes nothing off Linux", () => {
    assert.equal(withHugePages({ GLIBC_TUNABLES: "glibc.malloc.hugetlb=0" }, "linux").GLIBC_TUNABLES, "glibc.malloc.hugetlb=0");
    assert.deepEqual(withHugePages({ A: "1" }, "darwin"), { A: "1" });
  });

  it("a worker process of this host starts with it", { skip: process.platform !== "linux" && "Linux only" }, async (t: TestContext) => {
    const saved = process.env.GLIBC_TUNABLES;
    delete process.env.GLIBC_TUNABLES;
    t.after(() => {
      if (saved !== undefined) process.env.GLIBC_TUNABLES = saved;
    });
    await using procs = thisHost().spawnProcs({ procs: 1 });
    const seen = await procs.spawn("env", EnvReader).one.callOne("GLIBC_TUNABLES");
    assert.equal(seen, "glibc.malloc.hugetlb=1");
  });
});
