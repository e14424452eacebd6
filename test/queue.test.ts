// fray/queue: one suite over MemoryQueue, FileQueue and HttpQueue (ported from
// Fray's queue tests), then many processes working one FileQueue / one
// `fray queue serve` at once, a killed worker's lease, and the server's token.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { FileQueue, HttpQueue, MemoryQueue, serveQueue, type Queue, type QueueServer } from "../src/queue.ts";

const TOKEN = "queue-test-token";
const dir = mkdtempSync(join(tmpdir(), "fray-queue-test-"));
const servers: QueueServer[] = [];
const clients: HttpQueue<unknown>[] = [];
const children = new Set<ChildProcess>();
after(async () => {
  for (const child of children) child.kill("SIGKILL");
  for (const client of clients) client.close();
  for (const server of servers) await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One request with the test token (or `headers`); resolves to the status and body. */
function raw(
  server: QueueServer,
  method: string,
  path: string,
  headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), { method, headers }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

const bin = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const worker = fileURLToPath(new URL("./queue-worker.ts", import.meta.url));
let dirs = 0;

const kinds: Record<string, () => Promise<Queue<unknown>>> = {
  MemoryQueue: async () => new MemoryQueue(),
  FileQueue: async () => new FileQueue(join(dir, `q${dirs++}`)),
  HttpQueue: async () => {
    const server = await serveQueue(new MemoryQueue(), { token: TOKEN });
    servers.push(server);
    const client = new HttpQueue<unknown>(server.url, { token: TOKEN });
    clients.push(client);
    return client;
  },
};

for (const [kind, make] of Object.entries(kinds)) {
  describe(kind, () => {
    it("pop on an empty queue is null at once; a lease has a string id and a timestamp ≤ now; pops are FIFO", async () => {
      const q = await make();
      assert.equal(await q.pop(), null);
      assert.equal(await q.peek(), null);
      for (const item of ["a", { b: [1, 2n] }, new Date(5)]) await q.push(item);
      assert.equal(await q.peek(), "a");
      const first = await q.pop();
      assert.ok(first);
      assert.equal(typeof first.leaseId, "string");
      assert.ok(first.timestamp <= Date.now() && first.timestamp > Date.now() - 60_000);
      assert.equal(first.item, "a");
      assert.deepEqual((await q.pop())?.item, { b: [1, 2n] });
      assert.deepEqual((await q.pop())?.item, new Date(5));
      assert.equal(await q.pop(), null);
    });

    it("done removes the item; a second done or a release of it is an Invalid lease", async () => {
      const q = await make();
      await q.push(1);
      await q.push(2);
      const lease = await q.pop();
      assert.ok(lease);
      assert.equal(await q.size(), 2);
      await q.done(lease);
      assert.equal(await q.size(), 1);
      assert.equal(await q.pending(), 1);
      await assert.rejects(q.done(lease), { message: "Invalid lease" });
      await assert.rejects(q.release(lease), { message: "Invalid lease" });
      await assert.rejects(q.done({ item: 0, leaseId: "no-such-lease", timestamp: 0 }), { message: "Invalid lease" });
      assert.equal(await q.size(), 1);
    });

    it("release puts the item back at the front; size and pending follow 3/3/3/2/2 and 3/2/1/1/2", async () => {
      const q = await make();
      const sizes: number[] = [];
      const pendings: number[] = [];
      const record = async () => (sizes.push(await q.size()), pendings.push(await q.pending()));
      for (const item of ["x", "y", "z"]) await q.push(item);
      await record();
      const a = await q.pop();
      await record();
      const b = await q.pop();
      await record();
      assert.ok(a && b);
      await q.done(a);
      await record();
      await q.release(b);
      await record();
      assert.deepEqual(sizes, [3, 3, 3, 2, 2]);
      assert.deepEqual(pendings, [3, 2, 1, 1, 2]);
      assert.equal(await q.peek(), "y");
      assert.equal((await q.pop())?.item, "y");
      assert.equal((await q.pop())?.item, "z");
    });

    it("an expired lease returns its item to the front at the next pop", async () => {
      const q = await make();
      await q.push("slow");
      await q.push("next");
      const lease = await q.pop({ leaseTimeout: 0.2 });
      assert.equal(lease?.item, "slow");
      await sleep(300); // the lease's lifetime passing is what is tested
      assert.equal(await q.pending(), 2);
      const again = await q.pop();
      assert.equal(again?.item, "slow");
      await assert.rejects(q.done(lease!), { message: "Invalid lease" });
      await q.done(again!);
    });

    it("bad input: a lease timeout that is not a positive number of seconds, an item the codec cannot send", async () => {
      const q = await make();
      await q.push(1);
      for (const leaseTimeout of [0, -1, Number.NaN]) await assert.rejects(q.pop({ leaseTimeout }), /leaseTimeout is in seconds and must be a number > 0/);
      assert.equal(await q.pending(), 1);
      if (kind !== "MemoryQueue") await assert.rejects(q.push({ f: () => 1 }), /cannot be sent/);
      assert.equal(await q.size(), 1);
    });
  });
}

/** Starts a queue-worker process; resolves to its one line of JSON output. */
function startWorker(args: string[]): { child: ChildProcess; output: Promise<unknown> } {
  const child = spawn(process.execPath, ["--import", "tsx", worker, ...args], {
    env: { ...process.env, FRAY_TOKEN: TOKEN },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  const lines = createInterface({ input: child.stdout! });
  const output = once(lines, "line").then(([line]) => JSON.parse(line as string) as unknown);
  return { child, output };
}

/** `fray queue serve` in a subprocess; resolves to its URL. */
async function serveInProcess(): Promise<string> {
  const child = spawn(process.execPath, [bin, "queue", "serve"], { env: { ...process.env, FRAY_TOKEN: TOKEN }, stdio: ["ignore", "pipe", "inherit"] });
  children.add(child);
  const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
  return /at (http:\/\/\S+)/.exec(line)![1];
}

describe("many processes on one queue", () => {
  const N = 10_000;
  const places: Record<string, () => Promise<{ args: string[]; queue: Queue<{ id: number }> }>> = {
    FileQueue: async () => {
      const where = join(dir, `shared${dirs++}`);
      return { args: ["file", where], queue: new FileQueue(where) };
    },
    "HttpQueue (fray queue serve)": async () => {
      const url = await serveInProcess();
      const client = new HttpQueue<{ id: number }>(url, { token: TOKEN });
      clients.push(client as HttpQueue<unknown>);
      return { args: ["http", url], queue: client };
    },
  };

  for (const [kind, place] of Object.entries(places)) {
    it(`${kind}: 8 processes pop ${N} items at once and every item is processed exactly once`, async () => {
      const { args, queue } = await place();
      for (let i = 0; i < N; i += 200) await Promise.all(Array.from({ length: Math.min(200, N - i) }, (_, k) => queue.push({ id: i + k })));
      assert.equal(await queue.size(), N);
      const outputs = await Promise.all(Array.from({ length: 8 }, () => startWorker(["drain", ...args]).output));
      const ids = (outputs as number[][]).flat().sort((a, b) => a - b);
      assert.equal(ids.length, N);
      assert.deepEqual(
        ids,
        Array.from({ length: N }, (_, i) => i),
      );
      assert.ok((outputs as number[][]).filter((o) => o.length > 0).length >= 2, "the work was shared");
      assert.equal(await queue.size(), 0);
    });

    it(`${kind}: a killed worker's item comes back after its lease`, async () => {
      const { args, queue } = await place();
      await queue.push({ id: 7 });
      const holder = startWorker(["hold", ...args, "0.5"]);
      assert.deepEqual(await holder.output, { id: 7 });
      holder.child.kill("SIGKILL");
      await once(holder.child, "exit");
      assert.equal(await queue.size(), 1);
      let lease;
      while (!(lease = await queue.pop())) await sleep(50); // until the 0.5 s lease runs out
      assert.deepEqual(lease.item, { id: 7 });
      await queue.done(lease);
    });
  }
});

it("an HTTP request without the right token gets 401 and leaves the queue unchanged", async () => {
  const backing = new MemoryQueue<string>();
  await backing.push("kept");
  const server = await serveQueue(backing, { token: TOKEN });
  servers.push(server);
  for (const headers of [{}, { authorization: "Bearer wrong" }, { authorization: TOKEN }]) {
    const reply = await raw(server, "POST", "/pop", headers);
    assert.equal(reply.status, 401);
    assert.match(reply.body, /missing or wrong token/);
  }
  assert.equal((await raw(server, "POST", "/nope")).status, 404);
  assert.equal(await backing.size(), 1);
  assert.equal(await backing.pending(), 1);
  const wrong = new HttpQueue(server.url, { token: "wrong" });
  await assert.rejects(wrong.pop(), /refused this client's token \(401\)/);
  wrong.close();
  assert.throws(() => new HttpQueue("ftp://x/"), /http:\/\/ URL/);
  assert.equal(await backing.size(), 1);
});

it("new FileQueue(path of a file) says the path is a file and what to pass instead", () => {
  const file = join(dir, "not-a-directory");
  writeFileSync(file, "x");
  assert.throws(() => new FileQueue(file), {
    message:
      `FileQueue keeps its items in a directory, but ${file} is a file; pass the path of a directory for the queue alone (one that ` +
      `does not exist yet is created)`,
  });
  assert.throws(() => new FileQueue(join(file, "queue")), new RegExp(`but ${file} is a file, not a directory; pass the path of a directory`));
});

it("the queue server: a malformed lease id is an Invalid lease (409); no answer shows the queue's directory or a stack", async (t) => {
  const where = join(dir, `served${dirs++}`);
  const files = new FileQueue<string>(where);
  await files.push("kept");
  const server = await serveQueue(files, { token: TOKEN });
  servers.push(server);
  const client = new HttpQueue<string>(server.url, { token: TOKEN });
  clients.push(client as HttpQueue<unknown>);
  const lease = await client.pop();
  for (const leaseId of ["x".repeat(5000), `1~${"a".repeat(5000)}`, "../../etc/passwd", "a b", "1~zz"]) {
    for (const endpoint of ["done", "release"]) {
      const reply = await raw(server, "POST", `/${endpoint}?leaseId=${encodeURIComponent(leaseId)}`);
      assert.deepEqual([reply.status, JSON.parse(reply.body)], [409, { error: "Invalid lease" }], `${endpoint} ${leaseId.slice(0, 20)}`);
    }
    await assert.rejects(client.done({ ...lease!, leaseId }), { name: "InvalidLeaseError", message: "Invalid lease" });
  }
  await assert.rejects(new FileQueue<string>(where).done({ ...lease!, leaseId: `1~${"a".repeat(5000)}` }), { message: "Invalid lease" });
  assert.equal((await raw(server, "POST", "/pop?leaseTimeout=-1")).status, 400);
  await client.done(lease!); // the real lease still works
  assert.equal(await client.size(), 0);

  // A failure the server did not expect is a plain 500; the details go to the server's log only.
  const logged = t.mock.method(console, "error", () => {});
  const broken = await serveQueue(
    {
      ...new MemoryQueue(),
      size: async () => {
        throw new Error(`EACCES: permission denied, open '${where}/leased'`);
      },
    } as unknown as Queue<string>,
    { token: TOKEN },
  );
  servers.push(broken);
  const reply = await raw(broken, "GET", "/size");
  assert.equal(reply.status, 500);
  assert.deepEqual(JSON.parse(reply.body), { error: "the queue server failed to handle this request; its log says why" });
  assert.equal(logged.mock.callCount(), 1);
  assert.match(String(logged.mock.calls[0].arguments[1]), /EACCES/);
});
