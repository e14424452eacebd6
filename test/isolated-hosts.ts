// Hosts that share nothing but a filesystem, on this machine: each is a network
// namespace (its own IP on a bridge, its own loopback) and a mount namespace with
// a private /tmp and /dev/shm, as separate machines have. What they share stands
// for NFS: everything outside /tmp and /dev/shm (the repository, a state dir under
// /var/tmp; the checkout). A Unix socket path, a /dev/shm file or a loopback port that only
// exists on one host is therefore unreachable from the others, as in real life.
//
// Each host is held by a process that sits in its namespaces (`holder`); a
// command runs on a host by entering them (`nsenter`). Cleanup kills what it
// started, by PID, and deletes the namespaces. Benchmarks X1 and H2 (bench/groups/xhost.js, objects.js) load it through tsx.
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export interface IsolatedHost {
  readonly name: string;
  /** Its IP on the bridge, which every other host reaches. */
  readonly ip: string;
  /** Runs `command` on this host (its network, its /tmp and /dev/shm); killed by `dispose`. */
  spawn(command: string, args: readonly string[], options?: SpawnOptions): ChildProcess;
  /** Runs `command` on this host and returns its stdout (throws with its stderr on failure). */
  run(command: string, ...args: string[]): string;
  /** Cuts (`false`) or restores this host's link to the bridge, as a pulled cable would. */
  setLink(up: boolean): void;
}

const ip = (...args: string[]) => execFileSync("ip", args, { stdio: "pipe", encoding: "utf8" });

/**
 * Makes `count` isolated hosts on subnet 10.`subnet`.0.0/24 (give each test file its own
 * `subnet`, so files running at once never meet). `shared` is the state dir all hosts see.
 */
export async function isolatedHosts(count: number, subnet: number): Promise<{ hosts: IsolatedHost[]; shared: string } & AsyncDisposable> {
  const id = randomBytes(3).toString("hex");
  const bridge = `fsw-${id}`; // the switch: a namespace with only the bridge in it
  const namespaces = [bridge];
  const started: ChildProcess[] = [];
  const shared = mkdtempSync("/var/tmp/fray-shared-");
  const dispose = async () => {
    for (const child of started.reverse()) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        await once(child, "exit");
      }
    }
    for (const ns of namespaces) {
      try {
        ip("netns", "delete", ns);
      } catch {
        // not made
      }
    }
    rmSync(shared, { recursive: true, force: true });
  };
  try {
    ip("netns", "add", bridge);
    ip("-n", bridge, "link", "add", "br0", "type", "bridge");
    ip("-n", bridge, "link", "set", "br0", "up");
    const hosts: IsolatedHost[] = [];
    for (let i = 0; i < count; i++) {
      const ns = `fh${i}-${id}`;
      const hostIp = `10.${subnet}.0.${10 + i}`;
      const [veth, peer] = [`ve${i}${id}`, `vp${i}${id}`];
      ip("netns", "add", ns);
      namespaces.push(ns);
      ip("-n", ns, "link", "set", "lo", "up");
      ip("link", "add", veth, "type", "veth", "peer", "name", peer);
      ip("link", "set", veth, "netns", ns);
      ip("link", "set", peer, "netns", bridge);
      ip("-n", bridge, "link", "set", peer, "master", "br0", "up");
      ip("-n", ns, "addr", "add", `${hostIp}/24`, "dev", veth);
      ip("-n", ns, "link", "set", veth, "up");
      const holder = await holdHost(ns);
      started.push(holder);
      // Entering a mount namespace starts at its root: the command runs in `wd` instead.
      const enter = (wd: string) => ["--target", String(holder.pid), "--mount", "--net", `--wd=${wd}`, "--"];
      hosts.push({
        name: ns,
        ip: hostIp,
        spawn(command, args, options = {}) {
          const child = spawn("nsenter", [...enter(String(options.cwd ?? process.cwd())), command, ...args], { ...options, cwd: undefined });
          started.push(child);
          return child;
        },
        run: (command, ...args) => execFileSync("nsenter", [...enter(process.cwd()), command, ...args], { stdio: "pipe", encoding: "utf8" }),
        setLink: (up) => void ip("-n", bridge, "link", "set", peer, up ? "up" : "down"),
      });
    }
    return { hosts, shared, [Symbol.asyncDispose]: dispose };
  } catch (err) {
    await dispose();
    throw err;
  }
}

// The checkout (and its node_modules) stays visible on every host when it lives under /tmp (a CI's
// clone, say), as a shared home would: bound aside, then back over the fresh /tmp.
const HOLDER = `
set -e
if [ -n "$KEEP" ]; then mkdir -p /run/fray-keep-$$ && mount --bind "$KEEP" /run/fray-keep-$$; fi
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
if [ -n "$KEEP" ]; then mkdir -p "$KEEP" && mount --move /run/fray-keep-$$ "$KEEP" && rmdir /run/fray-keep-$$; fi
echo ready
exec sleep infinity`;
const CHECKOUT = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");

/** A process in `ns` and in a new mount namespace whose /tmp and /dev/shm are its own; resolves once they are mounted. */
async function holdHost(ns: string): Promise<ChildProcess> {
  const keep = /^\/(tmp|dev\/shm)\//.test(CHECKOUT) ? CHECKOUT : "";
  const holder = spawn("ip", ["netns", "exec", ns, "unshare", "--mount", "--propagation", "private", "sh", "-c", HOLDER], {
    env: { ...process.env, KEEP: keep },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [first] = await Promise.race([
    once(createInterface({ input: holder.stdout! }), "line"),
    once(holder, "exit").then(([code]) => {
      throw new Error(`the holder of host ${ns} exited with code ${code} before its /tmp and /dev/shm were mounted`);
    }),
  ]);
  if (first !== "ready") throw new Error(`the holder of host ${ns} said ${JSON.stringify(first)}`);
  return holder;
}

/** Starts `fray worker` (the built CLI) on `host` at port 22222 with `env` (its FRAY_TOKEN, say); resolves to its address once it listens. */
export async function startFrayWorker(host: IsolatedHost, env: NodeJS.ProcessEnv): Promise<string> {
  const bin = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
  const args = ["--import", "tsx", bin, "worker", "--listen", `tcp://${host.ip}:22222`];
  const w = host.spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "inherit"] });
  for await (const line of w.stdout!) if (String(line).includes("listening")) break;
  return `tcp://${host.ip}:22222`;
}
