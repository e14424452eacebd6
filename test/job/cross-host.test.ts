// Two jobs on two isolated hosts (isolated-hosts.ts: no shared /tmp, /dev/shm or
// loopback) and a namespace service on a third, as a trainer, a rollout and a
// submit host are: the rollout finds the trainer's named actor, reads a
// RemoteBuffer the trainer's driver owns, and sends on the trainer's port; and
// every kind of reference (reference-routes-actors.ts) takes that route.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { it } from "node:test";
import { isolatedHosts, type IsolatedHost } from "../isolated-hosts.ts";
import { SENT } from "./reference-routes-actors.ts";

const driver = fileURLToPath(new URL("./cross-host-driver.ts", import.meta.url));
const makerDriver = fileURLToPath(new URL("./reference-routes-maker.ts", import.meta.url));
const userDriver = fileURLToPath(new URL("./reference-routes-driver.ts", import.meta.url));
/** A program on `host` that prints JSON lines; its stdin stays open until `end()` (some drivers live as long as it does). */
function lines(host: IsolatedHost, args: string[], env: Record<string, string> = {}): { next(): Promise<unknown>; end(): void; exited: Promise<number> } {
  const child = host.spawn(process.execPath, ["--import", "tsx", ...args], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "inherit"] });
  const out = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return {
    next: async () => JSON.parse((await out.next()).value as string),
    end: () => child.stdin!.end(),
    exited: once(child, "exit").then(([code]) => code as number),
  };
}

/** Starts a local cluster's namespace service on `host`, listening on its bridge address. */
async function namespaceOn(host: IsolatedHost, shared: string): Promise<{ address: string; token: string; pid: number }> {
  const cluster = fileURLToPath(new URL("../../src/cluster.ts", import.meta.url));
  const service = lines(
    host,
    [
      "--input-type=module",
      "-e",
      `const { createCluster } = await import(${JSON.stringify(cluster)});` +
        `console.log(JSON.stringify(await createCluster("local?dir=${shared}/cluster").namespace()));`,
    ],
    { FRAY_NAMESPACE_LISTEN: `tcp://${host.ip}:0` },
  );
  return (await service.next()) as { address: string; token: string; pid: number };
}

it("a rollout job reads the trainer driver's RemoteBuffer and sends on its port, found through a named actor, across isolated hosts", async () => {
  await using net = await isolatedHosts(3, 214);
  const [submit, trainerHost, rolloutHost] = net.hosts;
  const { address, token, pid } = await namespaceOn(submit, net.shared);
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

it("every kind of reference a job on one host stores in a named actor is used by a job on another host, on every backend but sync", async () => {
  await using net = await isolatedHosts(3, 216);
  const [submit, makerHost, userHost] = net.hosts;
  const { address, token, pid } = await namespaceOn(submit, net.shared);
  try {
    const env = { FRAY_NAMESPACE: address, FRAY_TOKEN: token };
    const backends = ["threads", "processes", "mesh"];
    const maker = lines(makerHost, [makerDriver, JSON.stringify(backends)], env);
    const { stored } = (await maker.next()) as { stored: Record<string, unknown> };
    const user = lines(userHost, [userDriver, address, JSON.stringify(Object.keys(stored))], env);
    const readings = (await user.next()) as Record<string, unknown>;
    assert.deepEqual(readings, Object.fromEntries(Object.entries(stored).map(([key, expect]) => [key, { ok: expect }])));
    assert.equal(await user.exited, 0);
    assert.deepEqual(await maker.next(), { received: Object.fromEntries(backends.map((b) => [b, SENT])) }, "what the other host sent on each port arrived");
    maker.end();
    assert.equal(await maker.exited, 0);
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
