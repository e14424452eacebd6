// RemoteBuffer (Monarch's RDMABuffer): Monarch's parameter server on threads
// and on processes, transfers that do not wait for the owning actor, the batch
// form, and the faults (a dropped buffer, wrong sizes, an empty view, a dead
// owner, a stopped owner actor).
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { existsSync, readdirSync, readlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, it } from "node:test";
import { ProcessJob } from "../../src/launchers.ts";
import { RemoteBuffer, SupervisionError, setUnhandledFaultHook, thisHost, type ProcMesh } from "../../src/mesh.ts";
import { BufferGrandparent, BufferOwner, ParameterServer, ParamWorker } from "../fixtures/buffer-actors.ts";
import { killJob, runProgramWithSmallShm, track, waitForExit } from "../helpers.ts";

// No test here is about a lost host: a TCP host busy with large transfers on a loaded 2-core
// machine once went 6 s without answering heartbeats, and the default 4 s failed its mesh.
process.env.FRAY_HOST_TIMEOUT_MS = "60000";

const N = 1_000_000;
const WORKERS = 4;

/** Staging files these processes hold open that are still in /dev/shm (they are unlinked as soon as they are made). */
function stagingFilesOf(pids: readonly number[]): string[] {
  return pids.flatMap((pid) =>
    (existsSync(`/proc/${pid}/fd`) ? readdirSync(`/proc/${pid}/fd`) : []).flatMap((fd) => {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        return target.startsWith("/dev/shm/fray-buf-") && !target.endsWith(" (deleted)") ? [target] : [];
      } catch {
        return []; // closed meanwhile
      }
    }),
  );
}

function weightsAt(i: number): number {
  return (i % 1000) / 8;
}

/** The parameter server: 4 workers read 1M weights, push gradients w × (rank + 1); checked value by value. */
async function parameterServerStep(serverProcs: ProcMesh, workerProcs: ProcMesh): Promise<void> {
  const server = serverProcs.spawn("server", ParameterServer, N, WORKERS);
  const workers = workerProcs.spawn("workers", ParamWorker);
  const { weights, grads } = await server.handles.callOne();
  assert.equal(weights.size, 4 * N);
  assert.equal(grads.length, WORKERS);
  const last = await workers.step.call(weights, grads);
  assert.deepEqual(last.values(), Array(WORKERS).fill(weightsAt(N - 1)));
  for (let k = 0; k < WORKERS; k++) {
    const g = await server.gradient.callOne(k);
    for (let i = 0; i < N; i++) {
      if (g[i] !== weightsAt(i) * (k + 1)) assert.fail(`gradient of worker ${k} at ${i}: ${g[i]}, expected ${weightsAt(i) * (k + 1)}`);
    }
  }
  const updated = await server.apply.callOne();
  for (let i = 0; i < N; i++) {
    const expected = Math.fround(weightsAt(i) - (weightsAt(i) * 10) / 8);
    if (updated[i] !== expected) assert.fail(`weight ${i}: ${updated[i]}, expected ${expected}`);
  }
  // The workers see the update on their next read.
  assert.deepEqual((await workers.step.call(weights, grads)).values(), Array(WORKERS).fill(Math.fround(weightsAt(N - 1) - (weightsAt(N - 1) * 10) / 8)));
}

describe("parameter server", () => {
  it("RemoteBuffer parameter server on threads: 4 workers readInto 1M weights and writeFrom gradients", async () => {
    await using serverProcs = thisHost().spawnProcs({ hosts: 1 }, { threads: true });
    await using workerProcs = thisHost().spawnProcs({ gpus: WORKERS }, { threads: true });
    await parameterServerStep(serverProcs, workerProcs);
  });

  it("RemoteBuffer parameter server on processes: 4 workers readInto 1M weights and writeFrom gradients", async () => {
    let pids: number[];
    {
      await using serverProcs = track(thisHost().spawnProcs({ hosts: 1 }));
      await using workerProcs = track(thisHost().spawnProcs({ gpus: WORKERS }));
      pids = [process.pid, ...serverProcs.pids, ...workerProcs.pids];
      await parameterServerStep(serverProcs, workerProcs);
    }
    assert.deepEqual(stagingFilesOf(pids), [], "no shared-memory file is left behind");
  });
});

describe("across hosts (a ProcessJob's host over TCP)", () => {
  it("RemoteBuffer parameter server with the server on a TCP host: 4 local workers readInto and writeFrom", async () => {
    const job = new ProcessJob({ meshes: { hosts: 1 } });
    try {
      const { hosts } = await job.state();
      await using serverProcs = hosts.spawnProcs({ procs: 1 });
      await using workerProcs = track(thisHost().spawnProcs({ gpus: WORKERS }));
      assert.match((await serverProcs.spawn("probe", BufferOwner).make.callOne()).owner, /^tcp:/);
      await parameterServerStep(serverProcs, workerProcs);
    } finally {
      await killJob(job);
    }
  });

  it("a ping to an actor on a TCP host completes while a large transfer from it is in flight (bulk connection)", async () => {
    const job = new ProcessJob({ meshes: { hosts: 1 } });
    try {
      const { hosts } = await job.state();
      await using procs = hosts.spawnProcs({ procs: 1 });
      const owner = procs.spawn("owner", BufferOwner);
      const buf = await owner.big.callOne(128 * 2 ** 20, 3);
      const order: string[] = [];
      const dst = new Uint8Array(buf.size);
      const transfer = buf.readInto(dst).then(() => order.push("transfer"));
      const ping = owner.ping.callOne().then(() => order.push("ping"));
      await Promise.all([transfer, ping]);
      assert.deepEqual(order, ["ping", "transfer"]);
      assert.ok(dst.every((v) => v === 3));
    } finally {
      await killJob(job);
    }
  });

  it("a dead owner on a TCP host (kill -9 mid-transfer) rejects the transfer with SupervisionError", async (t) => {
    const previous = setUnhandledFaultHook(() => {}); // the killed rank's failure is expected
    t.after(() => setUnhandledFaultHook(previous));
    const job = new ProcessJob({ meshes: { hosts: 1 } });
    try {
      const { hosts } = await job.state();
      await using procs = hosts.spawnProcs({ procs: 1 });
      const owner = procs.spawn("owner", BufferOwner);
      const buf = await owner.big.callOne(256 * 2 ** 20, 5);
      const pid = await owner.pid.callOne();
      const inflight = buf.readInto(new Uint8Array(buf.size));
      process.kill(pid, "SIGKILL");
      // (Lost while dialing its bulk connection, or after: either way a SupervisionError naming the owner.)
      await assert.rejects(
        inflight,
        (e: Error) =>
          e instanceof SupervisionError && /(is gone|cannot reach the process owning RemoteBuffer)/.test(e.message) && e.message.includes(buf.owner),
      );
    } finally {
      await killJob(job);
    }
  });

  it("a transfer from a process that never reached the owner, whose host is gone, names the owner and the dial's error at its timeout", async (t) => {
    const previous = setUnhandledFaultHook(() => {}); // the lost host's failure is expected
    t.after(() => setUnhandledFaultHook(previous));
    const job = new ProcessJob({ meshes: { hosts: 1 } });
    try {
      const { hosts } = await job.state();
      const procs = hosts.spawnProcs({ procs: 1 });
      const buf = await procs.spawn("owner", BufferOwner).make.callOne();
      await using readers = track(thisHost().spawnProcs({ hosts: 1 }));
      const reader = readers.spawn("reader", BufferOwner);
      await reader.initialized;
      await killJob(job); // its worker's port refuses now, which over TCP may be a worker restarting: the dial retries
      await assert.rejects(reader.copyOf.callOne(buf, 1), (e: Error) => {
        assert.match(e.message, /did not finish within the timeout option \(1 s\): 0 of 4096 bytes moved; the process owning it, /);
        assert.ok(e.message.includes(`${buf.owner}, has not been reached: cannot connect to `), e.message);
        assert.match(e.message, /connect ECONNREFUSED 127\.0\.0\.1:\d+ \(retrying until FRAY_CONNECT_TIMEOUT_MS=\d+ runs out\)/);
        return true;
      });
    } finally {
      await killJob(job);
    }
  });

  it("a transfer larger than FRAY_MAX_FRAME_BYTES goes through in chunks", async (t) => {
    process.env.FRAY_MAX_FRAME_BYTES = String(2 ** 20); // the worker host and its procs inherit it
    t.after(() => delete process.env.FRAY_MAX_FRAME_BYTES);
    const job = new ProcessJob({ meshes: { hosts: 1 } });
    try {
      const { hosts } = await job.state();
      await using procs = hosts.spawnProcs({ procs: 1 });
      const owner = procs.spawn("owner", BufferOwner);
      const buf = await owner.big.callOne(8 * 2 ** 20 + 5, 4);
      const dst = new Uint8Array(buf.size);
      await buf.readInto(dst);
      assert.ok(dst.every((v) => v === 4));
      const src = Uint8Array.from({ length: buf.size }, (_, i) => i % 256);
      await buf.writeFrom(src);
      await buf.readInto(dst);
      assert.deepEqual(dst, src);
    } finally {
      await killJob(job);
    }
  });
});

describe("transfers", () => {
  it("a transfer completes while the owning actor's mailbox is busy", async () => {
    await using procs = track(thisHost().spawnProcs({ hosts: 1 }));
    const server = procs.spawn("server", ParameterServer, 1000, 1);
    const { weights } = await server.handles.callOne();
    const parked = server.park.callOne();
    const dst = new Float32Array(1000);
    await weights.readInto(dst);
    assert.equal(dst[999], weightsAt(999));
    await procs.spawn("unparker", BufferOwner).unparkServers.callOne();
    assert.equal(await parked, "unparked");
  });

  it("a ping to an actor completes while a large transfer from its process is in flight", async () => {
    await using procs = track(thisHost().spawnProcs({ hosts: 1 }));
    const owner = procs.spawn("owner", BufferOwner);
    const buf = await owner.big.callOne(128 * 2 ** 20, 3);
    const order: string[] = [];
    const transfer = buf.readInto(new Uint8Array(buf.size)).then(() => order.push("transfer"));
    const ping = owner.ping.callOne().then(() => order.push("ping"));
    await Promise.all([transfer, ping]);
    assert.deepEqual(order, ["ping", "transfer"]);
  });

  it("a buffer the client owns is read and written by an actor in another process, in many chunks", async (t) => {
    process.env.FRAY_BUFFER_CHUNK_BYTES = "65536"; // many chunks, the last one short: offsets must line up
    t.after(() => delete process.env.FRAY_BUFFER_CHUNK_BYTES);
    const bytes = Uint8Array.from({ length: 1_000_003 }, (_, i) => i % 251);
    const buf = new RemoteBuffer(bytes);
    try {
      await using procs = track(thisHost().spawnProcs({ hosts: 1 }));
      const actor = procs.spawn("reader", BufferOwner);
      assert.deepEqual(await actor.copyOf.callOne(buf), bytes);
      await actor.scribble.callOne(buf);
      assert.ok(bytes.every((v, i) => v === (i * 7) % 256));
    } finally {
      await buf.drop();
    }
  });

  it("between threads a SharedArrayBuffer-backed buffer is shared: transfers complete while the owner's thread is blocked", async () => {
    await using procs = thisHost().spawnProcs({ hosts: 1 }, { threads: true });
    const owner = procs.spawn("owner", BufferOwner);
    const buf = await owner.shared.callOne(3 * 2 ** 20, 2);
    const dst = new Uint8Array(buf.size);
    await buf.readInto(dst); // the first transfer asks the owner for its memory
    assert.ok(dst.every((v) => v === 2));
    const flag = new Int32Array(new SharedArrayBuffer(8));
    const blocked = owner.block.callOne(flag);
    await Atomics.waitAsync(flag, 1, 0).value; // the owner's thread is now blocked: it can answer no message
    await buf.writeFrom(new Uint8Array(buf.size).fill(9));
    await buf.readInto(dst);
    assert.ok(dst.every((v) => v === 9));
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
    await blocked;
    assert.equal(await owner.firstSharedByte.callOne(), 9); // the owner sees the write: the same memory
    await owner.stop(); // releases the buffer: the shared status word says so at once
    await assert.rejects(buf.readInto(dst), /RemoteBuffer \S+ was released when the actor that made it stopped/);
  });

  it("RemoteBuffer.batch submits several reads and writes with one completion", async () => {
    await using procs = track(thisHost().spawnProcs({ hosts: 1 }));
    const owner = procs.spawn("owner", BufferOwner);
    const [a, b] = await Promise.all([owner.big.callOne(10_000, 1), owner.big.callOne(20_000, 2)]);
    const da = new Uint8Array(10_000);
    await RemoteBuffer.batch().write(b, new Uint8Array(20_000).fill(9)).read(a, da).submit({ timeout: 30 });
    assert.ok(da.every((v) => v === 1));
    await b.writeFrom(new Uint8Array(0)); // an empty src moves nothing, and does not wait
    const db = new Uint8Array(20_000);
    await b.readInto(db);
    assert.ok(db.every((v) => v === 9));
  });
});

describe("faults", () => {
  it("a zero-length view is a clear error", () => {
    assert.throws(() => new RemoteBuffer(new Float32Array(0)), /RemoteBuffer\(view\): the view is empty \(0 bytes\)/);
    assert.throws(() => new RemoteBuffer([1, 2] as unknown as Uint8Array), /must be a typed array, DataView, ArrayBuffer or SharedArrayBuffer/);
  });

  it("a too-small dst and a too-large src are clear errors", async () => {
    const buf = new RemoteBuffer(new Float32Array(10));
    try {
      await assert.rejects(
        buf.readInto(new Float32Array(9)),
        (e: Error) => e instanceof RangeError && /dst has 36 bytes, too small; give a destination of at least 40 bytes/.test(e.message),
      );
      await assert.rejects(
        buf.writeFrom(new Float32Array(11)),
        (e: Error) => e instanceof RangeError && /src has 44 bytes, more than the buffer holds; write at most 40 bytes/.test(e.message),
      );
      await assert.rejects(buf.readInto(new Float32Array(10), { timeout: -1 }), /timeout must be a positive number of seconds/);
      await buf.writeFrom(new Float32Array(0)); // an empty src moves nothing
    } finally {
      await buf.drop();
    }
  });

  it("a dropped buffer's transfers fail; other buffers of its owner still work", async () => {
    await using procs = track(thisHost().spawnProcs({ hosts: 1 }));
    const owner = procs.spawn("owner", BufferOwner);
    const buf = await owner.make.callOne();
    const again = await owner.make.callOne();
    await buf.drop();
    await assert.rejects(buf.readInto(new Uint8Array(4096)), /this handle was dropped/);
    const dst = new Uint8Array(4096);
    await again.readInto(dst);
    assert.equal(dst[4095], 7);
  });

  it("a buffer dropped by one holder fails for another holder, naming the drop", async () => {
    await using procs = track(thisHost().spawnProcs({ gpus: 2 }));
    const owner = procs.slice({ gpus: 0 }).spawn("owner", BufferOwner);
    const workers = procs.slice({ gpus: 1 }).spawn("w", ParamWorker);
    const buf = await owner.make.callOne();
    await buf.drop();
    await assert.rejects(workers.step.callOne(buf, [buf]), /RemoteBuffer \S+ was dropped; its bytes are gone/);
  });

  it("a buffer created in an actor is released when that actor stops", async () => {
    await using procs = track(thisHost().spawnProcs({ hosts: 1 }));
    const owner = procs.spawn("owner", BufferOwner);
    const buf = await owner.make.callOne();
    await owner.stop();
    await assert.rejects(buf.readInto(new Uint8Array(4096)), /was released when its owner actor \S+ stopped/);
  });

  it("a transfer that does not finish within its timeout (seconds) rejects naming it", async (t) => {
    await using procs = track(thisHost().spawnProcs({ hosts: 1 }));
    const owner = procs.spawn("owner", BufferOwner);
    const buf = await owner.make.callOne();
    process.kill(procs.pids[0], "SIGSTOP"); // the owner cannot answer
    t.after(() => {
      try {
        process.kill(procs.pids[0], "SIGCONT"); // if the test failed before it did
      } catch {
        // stopped and gone
      }
    });
    await assert.rejects(
      buf.readInto(new Uint8Array(4096), { timeout: 0.5 }),
      /readInto of RemoteBuffer \S+ \(4096 bytes\) did not finish within the timeout option \(0\.5 s\): 0 of 4096 bytes moved/,
    );
    process.kill(procs.pids[0], "SIGCONT");
    const dst = new Uint8Array(4096);
    await buf.readInto(dst); // the same buffer answers again once its owner runs
    assert.equal(dst[0], 7);
  });

  // The owner's death is final news to a process that never reached it: its transfers and calls fail at once, not when
  // FRAY_CONNECT_TIMEOUT_MS (30 s) of retries runs out. These tests' own timeouts (20 s) are shorter than that.
  it("a transfer from, and a call to, a killed owner fail at once in a process that never reached it: its socket refuses", { timeout: 20_000 }, async (t) => {
    const previous = setUnhandledFaultHook(() => {}); // the killed rank's failure is expected
    t.after(() => setUnhandledFaultHook(previous));
    await using procs = track(thisHost().spawnProcs({ hosts: 2 }));
    const owners = procs.spawn("owner", BufferOwner);
    const buf = await owners.slice({ hosts: 0 }).make.callOne();
    process.kill(procs.pids[0], "SIGKILL");
    await waitForExit([procs.pids[0]]);
    const sibling = owners.slice({ hosts: 1 });
    // Refused; or reset, when a dial reached the listener's backlog just before the kill took it down (seen under load:
    // the reset reaches the connect or the first read).
    const refused = new RegExp(
      `cannot connect to ${escape(buf.owner)}: (connect ECONNREFUSED .* nothing listens on it: its process has exited|(connect|read) ECONNRESET)`,
    );
    await assert.rejects(sibling.copyOf.callOne(buf, 120), (e: Error) => {
      assert.match(e.message, new RegExp(`the process owning RemoteBuffer \\S+ \\(${escape(buf.owner)}\\) is gone: `));
      return refused.test(e.message);
    });
    await assert.rejects(sibling.pingOf.callOne(owners.slice({ hosts: 0 })), refused);
  });

  it("a transfer from an owner whose process tree ended fails at once: its socket's directory is gone", { timeout: 20_000 }, async () => {
    const parents = track(thisHost().spawnProcs({ hosts: 1 }));
    const { buf, pid } = await parents.spawn("grandparent", BufferGrandparent).make.callOne(); // owned by a process this one never reached
    await parents.stop();
    await waitForExit([...parents.pids, pid]); // a process's children end with it
    await assert.rejects(
      buf.readInto(new Uint8Array(buf.size), { timeout: 120 }),
      new RegExp(
        `the process owning RemoteBuffer \\S+ \\(${escape(buf.owner)}\\) is gone: cannot connect to ${escape(buf.owner)}: connect ENOENT .* — ` +
          `the directory of its socket is gone: its process has exited, or it is on another host, which shares no ${escape(tmpdir())} with this one`,
      ),
    );
  });

  it("a dead owner (kill -9) rejects an in-flight transfer and later ones with SupervisionError", async (t) => {
    const previous = setUnhandledFaultHook(() => {}); // the killed rank's failure is expected
    t.after(() => setUnhandledFaultHook(previous));
    let pids: number[];
    {
      await using procs = track(thisHost().spawnProcs({ hosts: 1 }));
      pids = procs.pids;
      const owner = procs.spawn("owner", BufferOwner);
      const buf = await owner.big.callOne(256 * 2 ** 20, 5);
      const inflight = buf.readInto(new Uint8Array(buf.size));
      process.kill(procs.pids[0], "SIGKILL");
      await assert.rejects(inflight, (e: Error) => e instanceof SupervisionError && /process owning RemoteBuffer .* is gone: .*SIGKILL/.test(e.message));
      await assert.rejects(buf.writeFrom(new Uint8Array(10)), SupervisionError);
    }
    assert.deepEqual(stagingFilesOf([process.pid, ...pids]), [], "no shared-memory file is left behind");
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

describe("a /dev/shm smaller than the buffer (a 1 MiB tmpfs, as a container's might be)", () => {
  it("moves a RemoteBuffer between processes of one host in frames instead: readInto and writeFrom give the same bytes", async (t) => {
    // The program runs in a mount namespace of its own, with a 1 MiB tmpfs on /dev/shm.
    const program = fileURLToPath(new URL("remote-buffer-small-shm-program.ts", import.meta.url));
    const { code, stdout, stderr } = await runProgramWithSmallShm(t, program);
    assert.equal(code, 0, stderr);
    const got = JSON.parse(stdout);
    assert.deepEqual({ read: got.read, written: got.written }, { read: true, written: true });
    assert.equal(got.usedAfter, got.usedBefore, "/dev/shm is left as it was");
  });
});
