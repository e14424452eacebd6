// Large task results held across isolated hosts (isolated-hosts.ts: no shared /tmp, /dev/shm or loopback), as on
// separate machines: a `mesh` job whose driver is on one host and whose two workers are on two others. A result stays
// in the worker that made it, in its heap (no process of another host could open a /dev/shm file of it); a task on the
// other host and the driver read it exactly, over the bulk connection. A holder killed makes its value anew when the
// task has retries, else its reads fail with ObjectLostError naming it. A value a task puts, and the result of a task
// it runs, are owned by its worker and read the same way; its worker killed, a put's reads fail the same. Refs that tasks return after those kills (put by
// them, or results of tasks they ran) still reach the driver as refs.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { it } from "node:test";
import { isolatedHosts, startFrayWorker } from "../isolated-hosts.ts";

const token = randomBytes(32).toString("hex");
const env = { ...process.env, FRAY_TOKEN: token };

it("a large result or put is read exactly across hosts; its holder killed, a read makes it anew or fails with ObjectLostError", async () => {
  await using net = await isolatedHosts(3, 217);
  const [client, ...hosts] = net.hosts;
  const workers = await Promise.all(hosts.map((h) => startFrayWorker(h, env)));
  const driver = fileURLToPath(new URL("./cross-host-held-driver.ts", import.meta.url));
  const c = client.spawn(process.execPath, ["--import", "tsx", driver, net.shared, ...workers], { env, stdio: ["ignore", "pipe", "inherit"] });
  const exited = once(c, "exit");
  const out = createInterface({ input: c.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await out.next();
    if (done) assert.fail(`the driver exited with code ${(await exited)[0]} before it said all`);
    return JSON.parse(value as string);
  };
  const ips = hosts.map((h) => h.ip);

  const read = await next();
  assert.ok(ips.includes(read.maker), `made on a worker host: ${read.maker}`);
  assert.deepEqual(read.readers.map((r: { host: string }) => r.host).sort(), [...ips].sort(), "a reader ran on each host");
  assert.deepEqual(
    read.readers.map((r: { wrong: number }) => r.wrong),
    [0, 0],
    "both tasks read every element exactly",
  );
  assert.equal(read.driverWrong, 0, "the driver read every element exactly");
  // No process of another host can open a file in the maker's /dev/shm: the value stays in its heap, read from there.
  assert.deepEqual(
    read.files.map((f: { host: string; files: number }) => [f.host === read.maker, f.files]).sort(),
    [
      [false, 0],
      [true, 0],
    ],
    "neither worker keeps a /dev/shm file of a held value",
  );

  const put = await next();
  assert.ok(ips.includes(put.putter), `put on a worker host: ${put.putter}`);
  assert.deepEqual(put.readers.map((r: { host: string }) => r.host).sort(), [...ips].sort(), "a reader of the put ran on each host");
  assert.deepEqual(
    put.readers.map((r: { wrong: number }) => r.wrong),
    [0, 0],
    "both tasks read the put exactly",
  );
  assert.equal(put.driverWrong, 0, "the driver read the put exactly");
  assert.equal(put.small, "small 4");
  assert.deepEqual(put.headCounts, { own: 0, borrowed: 0 }, "the head does not own the put");

  const nested = await next();
  assert.ok(ips.includes(nested.maker), `a nested task's result made on a worker host: ${nested.maker}`);
  assert.deepEqual(nested.readers.map((r: { host: string }) => r.host).sort(), [...ips].sort(), "a reader of it ran on each host");
  assert.deepEqual(
    nested.readers.map((r: { wrong: number }) => r.wrong),
    [0, 0],
    "both tasks read a nested task's result exactly",
  );
  assert.equal(nested.driverWrong, 0, "the driver read a nested task's result exactly");
  assert.equal(nested.small, "small 8");
  assert.deepEqual(nested.headCounts, { own: 0, borrowed: 0 }, "the head does not own a nested task's ref");

  const gone = await next();
  assert.equal(gone.read.name, "ObjectLostError", gone.read.message);
  assert.match(gone.read.message, new RegExp(`ObjectRef\\(${gone.ref}\\), made in worker ${gone.worker} .*by put.*its owner, that process, `));

  const retry = await next();
  assert.ok(ips.includes(retry.killedOn));
  assert.deepEqual(retry.retried, [0, 0, 0], `the driver and both tasks read the value made anew: ${JSON.stringify(retry.retried)}`);
  assert.equal(retry.remade, true, "the task ran again in another process");

  const lost = await next();
  for (const failed of lost.reads) {
    assert.equal(failed.name, "ObjectLostError", failed.message);
    assert.match(failed.message, new RegExp(`ObjectRef\\(${lost.lostRef}\\), the result of task bigOn, was held by worker ${lost.worker}`));
  }

  // Refs returned after the kills, once the driver has read failures the workers' (compiled) runtime threw.
  const after = await next();
  assert.deepEqual(
    after.put.readers.map((r: { wrong: number }) => r.wrong),
    [0, 0],
    "after the kills, both tasks read a put exactly",
  );
  assert.equal(after.put.driverWrong, 0, "after the kills, the driver read a put exactly");
  assert.equal(after.put.small, "small 6", "after the kills, a put ref reaches the driver as a ref");
  assert.deepEqual(after.put.headCounts, { own: 0, borrowed: 0 });
  assert.deepEqual(after.ran, { driverWrong: 0, small: "small 7" }, "after the kills, refs of tasks a task ran reach the driver as refs");
  assert.equal((await exited)[0], 0);
});
