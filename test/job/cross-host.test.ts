// Two jobs on two isolated hosts (isolated-hosts.ts: no shared /tmp, /dev/shm or
// loopback) and a namespace service on a third, as a trainer, a rollout and a
// submit host are: the rollout finds the trainer's named actor, reads a
// RemoteBuffer the trainer's driver owns, and sends on the trainer's port.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { it } from "node:test";
import { isolatedHosts, type IsolatedHost } from "../isolated-hosts.ts";

const driver = fileURLToPath(new URL("./cross-host-driver.ts", import.meta.url));
function lines(host: IsolatedHost, args: string[], env: Record<string, string> = {}): { next(): Promise<unknown>; exited: Promise<number> } {
  const child = host.spawn(process.execPath, ["--import", "tsx", ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  const out = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return {
    next: async () => JSON.parse((await out.next()).value as string),
    exited: once(child, "exit").then(([code]) => code as number),
  };
}

it("a rollout job reads the trainer driver's RemoteBuffer and sends on its port, found through a named actor, across isolated hosts", async () => {
  await using net = await isolatedHosts(3, 214);
  const [submit, trainerHost, rolloutHost] = net.hosts;
  const cluster = fileURLToPath(new URL("../../src/cluster.ts", import.meta.url));
  const service = lines(
    submit,
    [
      "--input-type=module",
      "-e",
      `const { createCluster } = await import(${JSON.stringify(cluster)});` +
        `console.log(JSON.stringify(await createCluster("local?dir=${net.shared}/cluster").namespace()));`,
    ],
    { FRAY_NAMESPACE_LISTEN: `tcp://${submit.ip}:0` },
  );
  const { address, token, pid } = (await service.next()) as { address: string; token: string; pid: number };
  try {
    const env = { FRAY_NAMESPACE: address, FRAY_TOKEN: token };
    const trainer = lines(trainerHost, [driver, "trainer"], env);
    const { posted } = (await trainer.next()) as { posted: number };
    const rollout = lines(rolloutHost, [driver, "rollout"], env);
    assert.deepEqual(await rollout.next(), { read: posted });
    assert.deepEqual(await trainer.next(), { reported: posted });
    assert.equal(await rollout.exited, 0);
    assert.equal(await trainer.exited, 0);
  } finally {
    process.kill(pid, "SIGKILL");
  }
});

it("a client that already listens on a Unix socket refuses to attach to a worker on another host, naming FRAY_ADVERTISE_HOST", async () => {
  await using net = await isolatedHosts(2, 215);
  const [client, worker] = net.hosts;
  const mesh = fileURLToPath(new URL("../../src/mesh.ts", import.meta.url));
  const script =
    `const { attachToWorkers, RemoteBuffer } = await import(${JSON.stringify(mesh)}); new RemoteBuffer(new Uint8Array(8));` +
    `try { attachToWorkers(["tcp://${worker.ip}:22222"]); console.log(JSON.stringify("attached")); }` +
    `catch (e) { console.log(JSON.stringify(e.message)); }`;
  const run = lines(client, ["--input-type=module", "-e", script], { FRAY_TOKEN: "a-token" });
  assert.match((await run.next()) as string, new RegExp(`already listens at unix:.*tcp://${worker.ip}:22222 is on another host.*FRAY_ADVERTISE_HOST`));
  assert.equal(await run.exited, 0);
});
