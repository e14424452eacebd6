// Live updates for open dashboard pages (Server-Sent Events): while any page
// listens, the sources are asked every FRAY_DASHBOARD_REFRESH_MS and a new
// `state` event goes out when anything but the time changed.
import type { ServerResponse } from "node:http";
import { config } from "../settings.ts";
import type { DashboardSources } from "./rows.ts";
import { collectState, type DashboardState } from "./sources.ts";

export class DashboardEvents {
  readonly #clients = new Set<ServerResponse>();
  #timer: NodeJS.Timeout | null = null;
  #last = "";
  #busy = false;

  constructor(
    private readonly sources: DashboardSources,
    private readonly refreshMs = config.dashboardRefreshMs,
  ) {}

  /** Pages following the updates now. */
  get listeners(): number {
    return this.#clients.size;
  }

  /** Streams to `res` until the page goes away: the state now, then every change. */
  async add(res: ServerResponse): Promise<void> {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" });
    this.#clients.add(res);
    res.on("close", () => {
      this.#clients.delete(res);
      if (this.#clients.size === 0) this.#stop();
    });
    const state = await collectState(this.sources);
    if (!this.#clients.has(res)) return; // gone while the sources answered: no timer for nobody
    send(res, state);
    this.#timer ??= setInterval(() => void this.#tick(), this.refreshMs);
  }

  close(): void {
    this.#stop();
    for (const res of this.#clients) res.end();
    this.#clients.clear();
  }

  async #tick(): Promise<void> {
    if (this.#busy) return; // a slow source: skip a beat rather than pile up
    this.#busy = true;
    try {
      const state = await collectState(this.sources);
      const key = JSON.stringify({ ...state, time: 0 });
      if (key === this.#last) {
        for (const res of this.#clients) res.write(": alive\n\n"); // keeps proxies from closing an idle stream
        return;
      }
      this.#last = key;
      for (const res of this.#clients) send(res, state);
    } finally {
      this.#busy = false;
    }
  }

  #stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#last = "";
  }
}

function send(res: ServerResponse, state: DashboardState): void {
  res.write(`event: state\ndata: ${JSON.stringify(state)}\n\n`);
}
