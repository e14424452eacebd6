// Ports picked before binding: for simulated hosts and their procs
// (simulator/virtual-proc.ts), and for a client that must name its TCP address
// before it listens (reach.ts). Taken from the range the OS hands out for port 0
// (and for outgoing connections), they would sometimes be a port another program
// was just given as free and is about to bind. So they are below that range (or
// above it), picked at random and bound at once, another one when a port is taken.
import { readFileSync } from "node:fs";

/** The OS's ephemeral range: Linux says in /proc; elsewhere assume IANA's (macOS, Windows). */
function ephemeralRange(): [number, number] {
  try {
    const [lo, hi] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    if (lo > 0 && hi >= lo) return [lo, hi];
  } catch {
    // not Linux
  }
  return [49152, 65535];
}

/** Where simulated hosts listen: [first, last], outside the ephemeral range when there is room. */
export const SIMULATOR_PORTS: readonly [number, number] = (() => {
  const [lo, hi] = ephemeralRange();
  const below: [number, number] = [10_000, lo - 1];
  const above: [number, number] = [hi + 1, 65_535];
  const size = ([a, b]: [number, number]) => b - a + 1;
  const best = size(below) >= size(above) ? below : above;
  return size(best) >= 4096 ? best : [1024, 65_535];
})();

/** A port of SIMULATOR_PORTS, at random. */
export function randomSimulatorPort(): number {
  const [first, last] = SIMULATOR_PORTS;
  return first + Math.floor(Math.random() * (last - first + 1));
}

/** Tries `listen` on `ports` in turn until one is not taken; rejects with the last error when none is left. */
export async function listenOnFirstFree<T>(ports: () => number | undefined, listen: (port: number) => Promise<T>): Promise<T> {
  let last: unknown = new Error("no port left to try");
  for (let port = ports(); port !== undefined; port = ports()) {
    try {
      return await listen(port);
    } catch (err) {
      if ((err as { cause?: { code?: string } }).cause?.code !== "EADDRINUSE") throw err;
      last = err;
    }
  }
  throw last;
}

/** Ports something on this machine listens on (TCP, IPv4 and IPv6), as Linux lists them; empty elsewhere. */
function listeningPorts(): Set<number> {
  const ports = new Set<number>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue; // not Linux, or no IPv6
    }
    for (const line of text.split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === "0A") ports.add(parseInt(local.slice(local.lastIndexOf(":") + 1), 16)); // 0A: LISTEN
    }
  }
  return ports;
}

/** A port of SIMULATOR_PORTS that nothing on this machine listens on now (picked without binding it). */
export function unlistenedPort(): number {
  const taken = listeningPorts();
  for (;;) {
    const port = randomSimulatorPort();
    if (!taken.has(port)) return port;
  }
}
