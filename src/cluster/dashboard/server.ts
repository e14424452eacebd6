// cluster/dashboard: the web UI and its JSON/SSE API: the server (this file), sign-in
// (auth.ts), what it shows (sources.ts, events.ts, metrics.ts) and the page (page.ts, script.ts).
// Uses only cluster's own top folder; the namespace service serves it.
//
// startDashboard: a web page and JSON APIs over a cluster's jobs and this
// process's meshes, actors and failures (see dashboard/sources.ts for what it
// shows, dashboard/auth.ts for who may see it). Loopback by default; every
// page, API and POST needs the token.
//   GET  /                 the page (with ?token=: signs in, then redirects without it)
//   POST /login, /logout   the login form; signing out
//   GET  /api/state        everything, as JSON; /api/jobs, /api/actors, /api/failures: parts of it
//   GET  /api/job?id=JOB   one job's page: its row, its processes' reports and its whole log
//   GET  /api/events       Server-Sent Events: `state` whenever it changes
//   GET  /metrics          Prometheus text, when a metrics source is given
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { hostname } from "node:os";
import { hasToken, useToken } from "../../runtime/face/network.ts";
import type { Cluster } from "../cluster.ts";
import { DashboardAuth, sameOrigin } from "./auth.ts";
import { DashboardEvents } from "./events.ts";
import { dashboardPage, loginPage } from "./page/page.ts";
import type { DashboardSources } from "./rows.ts";
import { clusterSources, collectState, runtimeSources, type DashboardState } from "./sources.ts";

export interface DashboardOptions {
  /** `HOST:PORT`, `[IPV6]:PORT` or `PORT` (default `127.0.0.1:0`: loopback, a free port). Another host exposes it to the network, unencrypted. */
  readonly listen?: string;
  /** The token viewers must give; a cluster's is `cluster.token()`. */
  readonly token: string;
  /** Where the picture comes from (default: this process's runtime, plus `cluster`'s jobs and actors when given). */
  readonly sources?: DashboardSources;
  /** A cluster whose jobs and namespace actors the default sources show. */
  readonly cluster?: Cluster;
  /** How often open pages are updated, in ms (default FRAY_DASHBOARD_REFRESH_MS). */
  readonly refreshMs?: number;
}

export interface Dashboard {
  /** `http://host:port`, no trailing slash: `${url}/metrics` is the metrics. Give viewers the token separately. */
  readonly url: string;
  /** Pages open now (following its live updates). */
  readonly viewers: number;
  close(): Promise<void>;
}

const MAX_FORM_BYTES = 4096;

export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const auth = new DashboardAuth(options.token);
  const { host, port } = parseListen(options.listen ?? "127.0.0.1:0");
  if (options.refreshMs !== undefined && !(Number.isFinite(options.refreshMs) && options.refreshMs > 0)) {
    throw new RangeError(`startDashboard: refreshMs must be a positive number of milliseconds, got ${options.refreshMs}`);
  }
  // Showing this process's runtime beside a cluster's actors: the runtime takes the cluster's token (as listing the
  // namespace's actors would), unless this process has one already, rather than a random one that the namespace refuses.
  if (!options.sources && options.cluster && !hasToken()) useToken(options.cluster.token());
  const sources = options.sources ?? { ...runtimeSources(), ...(options.cluster ? clusterSources(options.cluster) : {}) };
  const events = new DashboardEvents(sources, options.refreshMs);
  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) json(res, 500, { error: err.message });
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The request target is a path: "//metrics" is the path //metrics (no such page), not a URL of a host "metrics".
    if (!req.url?.startsWith("/")) return json(res, 404, { error: `no such page or API: ${req.url}` });
    const url = new URL(`http://dashboard${req.url}`);
    const path = url.pathname;
    if (req.method === "POST") return post(req, res, path);
    if (req.method !== "GET" && req.method !== "HEAD") return json(res, 405, { error: `${req.method} is not allowed here` });
    if (path === "/" || path === "/index.html") {
      const given = url.searchParams.get("token");
      if (given !== null) {
        if (!auth.isToken(given)) return html(res, 401, (nonce) => loginPage(nonce, "Wrong token: sign in with the dashboard's token."));
        url.searchParams.delete("token"); // out of the address bar, history and Referer
        return redirect(res, `${url.pathname}${url.search}`, auth.newSession());
      }
      if (!auth.allows(req)) return html(res, 401, (nonce) => loginPage(nonce, "Sign in with the dashboard's token."));
      return html(res, 200, dashboardPage);
    }
    if (!auth.allows(req)) return json(res, 401, { error: "sign in: open the page with ?token=TOKEN, or send Authorization: Bearer TOKEN" });
    if (path === "/api/events") return events.add(res);
    if (path === "/metrics") {
      if (!sources.metrics) return json(res, 404, { error: "this dashboard has no metrics source" });
      return send(res, 200, "text/plain; version=0.0.4; charset=utf-8", await sources.metrics());
    }
    if (path === "/api/job") {
      const id = url.searchParams.get("id");
      if (!sources.job) return json(res, 404, { error: "this dashboard shows no cluster's jobs" });
      if (!id) return json(res, 400, { error: "give the job: /api/job?id=JOB_ID" });
      try {
        return json(res, 200, await sources.job(id));
      } catch (err) {
        return json(res, (err as Error).name === "JobNotFoundError" ? 404 : 500, { error: (err as Error).message });
      }
    }
    const part = API[path];
    if (!part) return json(res, 404, { error: `no such page or API: ${path}` });
    return json(res, 200, part(await collectState(sources)));
  }

  async function post(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (!sameOrigin(req)) return json(res, 403, { error: "cross-site request refused: a POST must come from the dashboard's own page" });
    if (path === "/login") {
      const form = new URLSearchParams(await readBody(req));
      if (!auth.isToken(form.get("token"))) return html(res, 401, (nonce) => loginPage(nonce, "Wrong token: sign in with the dashboard's token."));
      return redirect(res, "/", auth.newSession());
    }
    if (!auth.hasSession(req)) return json(res, 401, { error: "sign in first" });
    if (path === "/logout") return redirect(res, "/", auth.endSession(req));
    return json(res, 404, { error: `no such action: ${path}` });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", (err) => reject(new Error(`startDashboard: cannot listen on ${options.listen ?? "127.0.0.1:0"}: ${err.message}`)));
    server.listen({ host, port }, resolve);
  });
  const bound = (server.address() as { port: number }).port;
  auth.port = bound;
  const shown = host === "0.0.0.0" || host === "::" ? hostname() : host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}`,
    get viewers() {
      return events.listeners;
    },
    async close() {
      events.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The JSON APIs other than /api/state: parts of the state. */
const API: Record<string, (s: DashboardState) => unknown> = {
  "/api/state": (s) => s,
  "/api/jobs": (s) => ({ jobs: s.jobs, error: s.errors.jobs }),
  "/api/actors": (s) => ({
    meshes: s.runtime?.meshes ?? null,
    local: s.runtime?.actors ?? null,
    namespace: s.namespaceActors,
    load: s.actorLoad,
    errors: s.errors,
  }),
  "/api/failures": (s) => ({ failures: s.failures, errors: s.errors }),
};

/** "127.0.0.1:0", "[::1]:8265", "8265". */
export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:(\[[^\]]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(listen);
  const port = Number(m?.[2]);
  if (!m || port > 65535)
    throw new TypeError(`dashboard listen address ${JSON.stringify(listen)}: expected HOST:PORT, [IPV6]:PORT or PORT, e.g. 127.0.0.1:8265`);
  return { host: (m[1] ?? "127.0.0.1").replace(/^\[|\]$/g, ""), port };
}

function headers(type: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    "content-type": type,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    ...extra,
  };
}

function send(res: ServerResponse, status: number, type: string, body: string, extra?: Record<string, string>): void {
  res.writeHead(status, headers(type, extra)).end(body);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, "application/json; charset=utf-8", JSON.stringify(value));
}

/** A page with a fresh nonce: only its own inline script and style run. */
function html(res: ServerResponse, status: number, render: (nonce: string) => string): void {
  const nonce = randomBytes(16).toString("base64");
  const csp =
    `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; form-action 'self'; ` +
    `frame-ancestors 'none'; base-uri 'none'`;
  send(res, status, "text/html; charset=utf-8", render(nonce), { "content-security-policy": csp });
}

function redirect(res: ServerResponse, location: string, cookie: string): void {
  res.writeHead(303, headers("text/plain", { location, "set-cookie": cookie })).end();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
      if (body.length > MAX_FORM_BYTES) req.destroy(new Error(`form larger than ${MAX_FORM_BYTES} bytes`));
    });
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}
