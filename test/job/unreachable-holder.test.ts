// A holder on a host that cannot be reached (issue 47): isolated hosts (isolated-hosts.ts) as separate machines, a
// `mesh` job whose driver is on one host and whose two workers are on two others. The second worker's host is cut off
// the network while its processes live on. Its values are then read at once, by the driver and by a task on the other
// worker's host: one whose task has a retry left is made anew on the reachable worker and read exactly; one whose task
// has none rejects with ObjectLostError naming the ref, its task, its holder, that it could not be reached, and the fix.
// Each read ends once the holder's host has been silent for FRAY_HOST_TIMEOUT_MS (lowered here; the error names it),
// where a reader with an open connection to it used to wait FRAY_BUFFER_TIMEOUT_MS; the value held on the reachable
// host is not lost.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { it } from "node:test";
import { isolatedHosts, startFrayWorker } from "../isolated-hosts.ts";

const token = randomBytes(32).toString("hex");
// The host timeout bounds how long a read waits for a holder that does not answer.
const env = { ...process.env, FRAY_TOKEN: token, FRAY_HOST_TIMEOUT_MS: "2000", FRAY_HEARTBEAT_INTERVAL_MS: "200" };

it("a value held on a host cut off the network is made anew when retries allow, else its reads reject naming the holder", { timeout: 120_000 }, async (t) => {
  await using net = await isolatedHosts(3, 218);
  const [client, ...hosts] = net.hosts;
  const workers = await Promise.all(hosts.map((h) => startFrayWorker(h, env)));
  const driver = fileURLToPath(new URL("./unreachable-holder-driver.ts", import.meta.url));
  const c = client.spawn(process.execPath, ["--import", "tsx", driver, net.shared, ...workers], { env, stdio: ["pipe", "pipe", "inherit"] });
  const exited = once(c, "exit");
  t.signal.addEventListener("abort", () => c.kill("SIGKILL")); // a read that hangs fails the test, which then cleans up
  const out = createInterface({ input: c.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await out.next();
    if (done) assert.fail(`the driver exited with code ${(await exited)[0]} before it said all`);
    return JSON.parse(value as string);
  };
  const [reachable, cut] = hosts;

  const { made, before, lostRef } = await next();
  assert.deepEqual(made, { other: reachable.ip, remade: cut.ip, lost: cut.ip }, "each value made where the test means");
  assert.deepEqual(before, [0, 0], "read exactly across hosts before the cut, by the driver and a task");
  cut.setLink(false);
  try {
    c.stdin!.end(); // the driver reads when its stdin ends
    const { reads, remadeOn } = await next();
    console.log(`# reads ended ${reads.map((r: { ms: number }) => r.ms).join(", ")} ms after the cut`);
    const [getRemade, taskRemade, getLost, taskLost] = reads;
    assert.equal(getRemade.wrong, 0, `the driver read the value made anew exactly: ${JSON.stringify(getRemade)}`);
    assert.equal(taskRemade.wrong, 0, `a task on the reachable host read the value made anew exactly: ${JSON.stringify(taskRemade)}`);
    assert.equal(remadeOn, reachable.ip, "made anew on the reachable worker");
    for (const failed of [getLost, taskLost]) {
      assert.equal(failed.name, "ObjectLostError", failed.message);
      assert.match(
        failed.message,
        new RegExp(`ObjectRef\\(${lostRef}\\), the result of task bigNear, was held by worker 1 at tcp://${cut.ip.replaceAll(".", "\\.")}:`),
      );
      assert.match(failed.message, /could not be reached/);
      assert.match(failed.message, /FRAY_HOST_TIMEOUT_MS=2000/);
      assert.match(failed.message, /maxRetries/);
      assert.match(failed.message, /network/);
    }
    const { other } = await next();
    assert.deepEqual(
      other.map((r: { wrong: number }) => r.wrong),
      [0, 0],
      `the value held on the reachable host is read exactly by the driver and a task there: ${JSON.stringify(other)}`,
    );
    assert.equal((await exited)[0], 0);
  } finally {
    cut.setLink(true);
  }
});
