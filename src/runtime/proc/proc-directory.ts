// Where the procs a worker started listen. They take TCP ports the OS picks
// (never "the ports after the worker's", which may be someone else's); each
// reports its port in the hello it sends its worker, and a peer that wants to
// dial `tcp://host:workerPort/name` asks that worker first ("where").
import { settingName } from "../base/config.ts";
import { ConnectionError } from "../base/errors.ts";
import type { ProcMessaging } from "./messaging.ts";

type Waiter = (port: number | Error) => void;

/** The worker's side: ports its procs reported, and the askers waiting for one not up yet. */
export class ProcDirectory {
  #ports = new Map<string, number>();
  #waiting = new Map<string, Set<Waiter>>();

  report(addr: string, port: number): void {
    this.#ports.set(addr, port);
    this.#settle(addr, port);
  }

  /** The proc at `addr` is gone: its port may go to another process now. */
  forget(addr: string, error: Error): void {
    this.#ports.delete(addr);
    this.#settle(addr, error);
  }

  /** The port of the proc at `addr`, once it has reported it (a proc still starting is waited for, up to `timeoutMs`). */
  lookup(addr: string, timeoutMs: number): Promise<number> {
    const port = this.#ports.get(addr);
    if (port !== undefined) return Promise.resolve(port);
    return new Promise((resolve, reject) => {
      let waiting = this.#waiting.get(addr);
      if (!waiting) this.#waiting.set(addr, (waiting = new Set()));
      const waiter: Waiter = (found) => {
        clearTimeout(timer);
        waiting.delete(waiter);
        if (waiting.size === 0 && this.#waiting.get(addr) === waiting) this.#waiting.delete(addr);
        if (found instanceof Error) reject(found);
        else resolve(found);
      };
      const timer = setTimeout(
        () => waiter(new ConnectionError(`no proc ${addr} reported in within ${timeoutMs} ms (${settingName("connectTimeoutMs")})`)),
        timeoutMs,
      );
      timer.unref();
      waiting.add(waiter);
    });
  }

  #settle(addr: string, found: number | Error): void {
    const waiting = this.#waiting.get(addr);
    if (!waiting) return;
    this.#waiting.delete(addr);
    for (const waiter of [...waiting]) waiter(found);
  }
}

/** Asks the worker at `worker` which port the proc at `addr` listens on; rejects at `deadline` or when the worker is lost. */
export function locate(proc: ProcMessaging, worker: string, addr: string, deadline: number): Promise<number> {
  const gone = proc.lostPeer(worker);
  if (gone) return Promise.reject(new ConnectionError(`its worker ${worker} is gone: ${gone.message}`, { cause: gone }));
  return new Promise((resolve, reject) => {
    const finish = (found: number | Error) => {
      clearTimeout(timer);
      proc.closePort(port);
      unwatch();
      if (found instanceof Error) reject(found);
      else resolve(found);
    };
    const port = proc.openPort((_rank, ok, value) => finish(ok ? (value as number) : (value as Error)));
    const unwatch = proc.onPeerLost((lost, error) => {
      if (lost === worker) finish(new ConnectionError(`its worker ${worker} is unreachable: ${error.message}`, { cause: error }));
    });
    const timer = setTimeout(
      () => finish(new ConnectionError(`its worker ${worker} did not say where it listens in time (${settingName("connectTimeoutMs")})`)),
      Math.max(0, deadline - Date.now()),
    );
    timer.unref();
    proc.send(worker, { kind: "where", addr, reply: { addr: proc.addr, id: port } });
  });
}
