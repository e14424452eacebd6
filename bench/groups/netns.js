// N1/N2 across a network-namespace link (needs root and `ip`): round trip vs raw TCP, and cut host →
// MeshFailure at the default FRAY_HOST_TIMEOUT_MS. The client side runs in bench/fixtures/netns-client.js.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { report, skip, want } from "../lib/group.js";

const netnsHere = () => process.getuid?.() === 0 && spawnSync("sh", ["-c", "command -v ip"]).status === 0;
if (want("N1", "N2") && !netnsHere()) skip("N1 and N2 need root and ip");
else if (want("N1", "N2")) {
  const id = Math.random().toString(16).slice(2, 8);
  const client = `bc-${id}`;
  const host = `bh-${id}`;
  const ip = (...args) => spawnSync("ip", args, { stdio: "ignore" }).status;
  const nsExec = (ns, ...args) => ip("netns", "exec", ns, ...args);
  const children = [];
  try {
    ip("netns", "add", client);
    ip("netns", "add", host);
    nsExec(client, "ip", "link", "set", "lo", "up");
    nsExec(host, "ip", "link", "set", "lo", "up");
    ip("link", "add", `bv${id}`, "type", "veth", "peer", "name", `bp${id}`);
    ip("link", "set", `bv${id}`, "netns", host);
    ip("link", "set", `bp${id}`, "netns", client);
    nsExec(host, "ip", "addr", "add", "10.213.8.2/24", "dev", `bv${id}`);
    nsExec(host, "ip", "link", "set", `bv${id}`, "up");
    nsExec(client, "ip", "addr", "add", "10.213.8.1/24", "dev", `bp${id}`);
    nsExec(client, "ip", "link", "set", `bp${id}`, "up");
    const token = Math.random().toString(16).slice(2) + Date.now();
    const env = { ...process.env, FRAY_TOKEN: token };
    const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
    const worker = spawn("ip", ["netns", "exec", host, process.execPath, bin, "worker", "--listen", "tcp://10.213.8.2:22222"], {
      env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(worker);
    for await (const line of worker.stdout) if (String(line).includes("listening")) break;
    const echoPeer = spawn(
      "ip",
      [
        "netns",
        "exec",
        host,
        process.execPath,
        "-e",
        "require('net').createServer((s) => { s.setNoDelay(true); s.pipe(s); }).listen(22300, '10.213.8.2', () => console.log('ready'))",
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    children.push(echoPeer);
    await once(echoPeer.stdout, "data");
    const clientFile = fileURLToPath(new URL("../fixtures/netns-client.js", import.meta.url));
    const c = spawn("ip", ["netns", "exec", client, process.execPath, clientFile, "tcp://10.213.8.2:22222", "10.213.8.2", "22300"], {
      env,
      stdio: ["pipe", "pipe", "inherit"],
    });
    children.push(c);
    const lines = createInterface({ input: c.stdout })[Symbol.asyncIterator]();
    const { actorUs, rawUs } = JSON.parse((await lines.next()).value);
    report(
      "N1",
      "actor round trip across a network-namespace link (p50)",
      actorUs.toFixed(1),
      "µs",
      `raw TCP ping-pong ${rawUs.toFixed(1)} µs`,
      `${(actorUs / rawUs).toFixed(2)}× floor`,
      "(no goal)",
      null,
    );
    nsExec(client, "ip", "link", "set", `bp${id}`, "down");
    c.stdin.write("cut\n");
    const { detectMs } = JSON.parse((await lines.next()).value);
    report(
      "N2",
      "cut host → MeshFailure (default FRAY_HOST_TIMEOUT_MS 4 s, 1 s heartbeat)",
      (detectMs / 1000).toFixed(1),
      "s",
      "",
      "",
      "≤ 5 s",
      detectMs <= 5000,
    );
  } finally {
    for (const ch of children) ch.kill("SIGKILL");
    ip("netns", "delete", client);
    ip("netns", "delete", host);
  }
}
