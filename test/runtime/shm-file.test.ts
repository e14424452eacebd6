// Shared-memory files between processes of one host (src/runtime/bulk/shm-file.ts): collective outboxes and
// RemoteBuffer staging files are made exclusively under unguessable names, so a name another user planted in
// /dev/shm (a symlink to a file of the victim's) is never written through; a peer opens only the very file
// its maker named (inode, unlinked, on /dev/shm, the maker's user), whatever an fd number has become since.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { thisHost, type ProcMesh } from "../../src/mesh.ts";
import { openShmFile } from "../../src/runtime/bulk/shm-file.ts";
import { Trainer } from "../fixtures/collective-actors.ts";
import { track } from "../helpers.ts";

describe("names planted in /dev/shm", () => {
  let procs: ProcMesh;
  let dir = "";
  const planted: string[] = [];
  before(() => {
    procs = track(thisHost().spawnProcs({ gpus: 2 }));
    dir = mkdtempSync(join(tmpdir(), "fray-shm-victim-"));
  });
  after(async () => {
    for (const link of planted) rmSync(link, { force: true });
    rmSync(dir, { recursive: true, force: true });
    await procs.stop();
  });

  it("are not followed: a collective's outboxes never write through them", async () => {
    const victim = join(dir, "precious");
    writeFileSync(victim, "precious");
    // The names a worker would have used, each a symlink to the victim.
    for (const pid of procs.pids)
      for (let n = 0; n < 4; n++) {
        const link = `/dev/shm/fray-coll-${pid}-${n}`;
        symlinkSync(victim, link);
        planted.push(link);
      }
    const trainers = procs.spawn("trainers", Trainer);
    for (let i = 0; i < 3; i++) assert.deepEqual((await trainers.allReduceIs.call(1 << 18, 3)).values(), [true, true]);
    assert.equal((await trainers.pathStats.call()).values()[0].sharedMemory.pieces, 6, "the arrays went through shared memory");
    assert.equal(readFileSync(victim, "utf8"), "precious");
  });
});

/** A process of this host that makes shared-memory files and prints their refs, one a line, until its stdin ends. */
const MAKER = `
import { openSync } from "node:fs";
import { createShmFile } from ${JSON.stringify(fileURLToPath(new URL("../../src/runtime/bulk/shm-file.ts", import.meta.url)))};
const a = createShmFile("fray-test-");
const b = createShmFile("fray-test-");
const linked = openSync(${JSON.stringify(join(tmpdir(), `fray-shm-linked-${process.pid}`))}, "w+");
console.log(a.ref);
console.log(b.ref);
console.log(\`/proc/\${process.pid}/fd/\${linked}#\${(await import("node:fs")).fstatSync(linked).ino}\`);
process.stdin.resume();`;

describe("opening another process's shared-memory file", () => {
  it("opens the file its maker named, and refuses any other", async (t) => {
    const maker = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", MAKER], { stdio: ["pipe", "pipe", "inherit"] });
    t.after(async () => {
      maker.stdin.end();
      if (maker.exitCode === null) await once(maker, "exit");
      rmSync(join(tmpdir(), `fray-shm-linked-${process.pid}`), { force: true });
    });
    const lines = createInterface({ input: maker.stdout })[Symbol.asyncIterator]();
    const [a, b, linked] = [(await lines.next()).value, (await lines.next()).value, (await lines.next()).value] as string[];
    const fd = openShmFile(a, "r+", "test file");
    assert.ok(fd !== null);
    closeSync(fd);
    // b's fd number with a's inode: what a ref to a closed fd whose number was reused looks like.
    const reused = `${b.slice(0, b.indexOf("#"))}${a.slice(a.indexOf("#"))}`;
    assert.throws(
      () => openShmFile(reused, "r", "test file"),
      /^Error: refusing test file .*: the file there is not the unlinked \/dev\/shm file its process made$/,
    );
    // A file of the maker's that is not in /dev/shm, and not unlinked.
    assert.throws(() => openShmFile(linked, "r+", "test file"), /the file there is not the unlinked \/dev\/shm file/);
    // This process's own fds, and paths of any other form.
    const own = openSync(join(tmpdir(), `fray-shm-linked-${process.pid}`), "r");
    try {
      assert.throws(() => openShmFile(`/proc/${process.pid}/fd/${own}#1`, "r", "test file"), /not another process's \/dev\/shm file/);
    } finally {
      closeSync(own);
    }
    assert.throws(() => openShmFile("/etc/passwd", "r", "test file"), /not another process's \/dev\/shm file/);
    // A fd the maker no longer has: gone, not an error.
    assert.equal(openShmFile(`${a.slice(0, a.indexOf("/fd/"))}/fd/999999#1`, "r", "test file"), null);
  });
});
