// Real hosts: three network namespaces (veth pairs on a bridge, their own IPs)
// each run `fray worker`; a client in a fourth attaches, and actors on
// different hosts call each other. Cutting one host's link fails exactly that
// host's ranks (found by heartbeat: a cut link closes no connection).
import assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { after, before, it } from "node:test";

const id = randomBytes(3).toString("hex");
const client = `fc-${id}`;
const hosts = [0, 1, 2].map((i) => ({ ns: `fh${i}-${id}`, veth: `fv${i}${id}`, peer: `fp${i}${id}`, ip: `10.213.7.${11 + i}` }));
const token = randomBytes(32).toString("hex");
const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const workers: ChildProcess[] = [];

const ip = (...args: string[]) => execFileSync("ip", args, { stdio: "pipe" });
const inNs = (ns: string, ...args: string[]) => ip("netns", "exec", ns, ...args);

before(() => {
  ip("netns", "add", client);
  inNs(client, "ip", "link", "set", "lo", "up");
  inNs(client, "ip", "link", "add", "br0", "type", "bridge");
  inNs(client, "ip", "addr", "add", "10.213.7.1/24", "dev", "br0");
  inNs(client, "ip", "link", "set", "br0", "up");
  for (const h of hosts) {
    ip("netns", "add", h.ns);
    inNs(h.ns, "ip", "link", "set", "lo", "up");
    ip("link", "add", h.veth, "type", "veth", "peer", "name", h.peer);
    ip("link", "set", h.veth, "netns", h.ns);
    ip("link", "set", h.peer, "netns", client);
    inNs(client, "ip", "link", "set", h.peer, "master", "br0", "up");
    inNs(h.ns, "ip", "addr", "add", `${h.ip}/24`, "dev", h.veth);
    inNs(h.ns, "ip", "link", "set", h.veth, "up");
  }
});

after(async () => {
  for (const w of workers) {
    w.kill("SIGKILL");
    if (w.exitCode === null && w.signalCode === null) await once(w, "exit");
  }
  for (const ns of [client, ...hosts.map((h) => h.ns)]) {
    try {
      ip("netns", "delete", ns);
    } catch {
      // already gone
    }
  }
});

async function startWorker(h: (typeof hosts)[number]): Promise<void> {
  const w = spawn("ip", ["netns", "exec", h.ns, process.execPath, "--import", "tsx", bin, "worker", "--listen", `tcp://${h.ip}:22222`], {
    env: { ...process.env, FRAY_TOKEN: token },
    stdio: ["ignore", "pipe", "inherit"],
  });
  workers.push(w);
  for await (const line of w.stdout!) if (String(line).includes("listening")) break;
}

it("attaches to workers in three namespaces; a cut host fails only its ranks", async () => {
  await Promise.all(hosts.map(startWorker));
  const c = spawn(
    "ip",
    [
      "netns",
      "exec",
      client,
      process.execPath,
      "--import",
      "tsx",
      fileURLToPath(new URL("./netns-client.ts", import.meta.url)),
      ...hosts.map((h) => `tcp://${h.ip}:22222`),
    ],
    {
      env: { ...process.env, FRAY_TOKEN: token, FRAY_HOST_TIMEOUT_MS: "3000", FRAY_HEARTBEAT_INTERVAL_MS: "200" },
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  workers.push(c);
  const out = createInterface({ input: c.stdout! })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await out.next()).value as string);
  assert.deepEqual(await next(), { sums: [6, 6, 6] });
  assert.deepEqual(await next(), { ready: true });
  inNs(client, "ip", "link", "set", hosts[2].peer, "down");
  c.stdin!.write("cut\n");
  assert.deepEqual(await next(), { failed: [2], survivors: [2] });
  const [code] = await once(c, "exit");
  assert.equal(code, 0);
});
