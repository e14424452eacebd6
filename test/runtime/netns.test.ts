// Real hosts: three isolated hosts (isolated-hosts.ts: their own network, /tmp
// and /dev/shm) each run `fray worker`; a client on a fourth attaches, and actors
// on different hosts call each other, run a collective and read each other's
// RemoteBuffers. Cutting one host's link fails exactly that
// host's ranks (found by heartbeat: a cut link closes no connection).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { it } from "node:test";
import { isolatedHosts, startFrayWorker } from "../isolated-hosts.ts";

const token = randomBytes(32).toString("hex");
const env = { ...process.env, FRAY_TOKEN: token };

it("attaches to workers on three isolated hosts; a cut host fails only its ranks", async () => {
  await using net = await isolatedHosts(4, 213);
  const [client, ...hosts] = net.hosts;
  const workers = await Promise.all(hosts.map((h) => startFrayWorker(h, env)));
  const c = client.spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./netns-client.ts", import.meta.url)), ...workers], {
    env: { ...env, FRAY_HOST_TIMEOUT_MS: "3000", FRAY_HEARTBEAT_INTERVAL_MS: "200" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const out = createInterface({ input: c.stdout! })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await out.next()).value as string);
  assert.deepEqual(await next(), { sums: [6, 6, 6] });
  assert.deepEqual(await next(), { allReduced: [true, true, true] });
  // Per rank: [pieces through /dev/shm, pieces by socket]: the large allReduce sends 1 + 1 to the rank on its host and
  // 2 + 2 to the other host's; the first (small) call goes in frames to all 3.
  assert.deepEqual(await next(), {
    pairs: [true, true, true, true],
    paths: [
      [2, 7],
      [2, 7],
      [2, 7],
      [2, 7],
    ],
  });
  assert.deepEqual(await next(), { buffers: [9 << 20, 9 << 20, 5 << 20] });
  assert.deepEqual(await next(), { ready: true });
  hosts[2].setLink(false);
  c.stdin!.write("cut\n");
  assert.deepEqual(await next(), { failed: [2], survivors: [2] });
  const [code] = await once(c, "exit");
  assert.equal(code, 0);
});
