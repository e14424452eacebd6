// Who may see a dashboard: whoever proves the token. A page visit with
// `?token=` or the login form trades it for a session cookie (a random id,
// never the token; HttpOnly, SameSite=Strict); scripts send
// `Authorization: Bearer TOKEN`. A POST also needs its Origin to be this
// server, so another site cannot make a signed-in browser send one (CSRF).
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { config } from "../settings.ts";

export class DashboardAuth {
  readonly #digest: Buffer;
  /** Session id → when it expires (ms since the epoch). */
  readonly #sessions = new Map<string, number>();
  /** Cookies are shared by every port of a host: the port in the name keeps two dashboards apart. */
  #cookieName = "fray_dashboard";

  constructor(token: string) {
    if (typeof token !== "string" || token.trim() === "") {
      throw new TypeError("startDashboard needs options.token, the token that viewers must give (a cluster's: cluster.token())");
    }
    this.#digest = digest(token);
  }

  set port(port: number) {
    this.#cookieName = `fray_dashboard_${port}`;
  }

  /** Whether `given` is the token; takes the same time whatever `given` is. */
  isToken(given: string | null | undefined): boolean {
    return typeof given === "string" && timingSafeEqual(digest(given), this.#digest);
  }

  /** Whether the request carries a live session cookie or the token as a bearer. */
  allows(req: IncomingMessage): boolean {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
    if (bearer) return this.isToken(bearer[1]);
    return this.hasSession(req);
  }

  hasSession(req: IncomingMessage): boolean {
    const id = cookies(req.headers.cookie).get(this.#cookieName);
    const expires = id === undefined ? undefined : this.#sessions.get(id);
    if (expires === undefined) return false;
    if (expires > Date.now()) return true;
    this.#sessions.delete(id!);
    return false;
  }

  /** A new session: the Set-Cookie header that holds it. */
  newSession(): string {
    const now = Date.now();
    for (const [id, expires] of this.#sessions) if (expires <= now) this.#sessions.delete(id);
    const id = randomBytes(32).toString("base64url");
    this.#sessions.set(id, now + config.dashboardSessionMs);
    return `${this.#cookieName}=${id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${Math.floor(config.dashboardSessionMs / 1000)}`;
  }

  /** Ends the request's session: the Set-Cookie header that clears it. */
  endSession(req: IncomingMessage): string {
    const id = cookies(req.headers.cookie).get(this.#cookieName);
    if (id !== undefined) this.#sessions.delete(id);
    return `${this.#cookieName}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
  }
}

/**
 * Whether a state-changing request comes from a page of this server: its
 * Origin (or, without one, its Referer) must name the host it was sent to.
 * Browsers always send Origin on a cross-site POST.
 */
export function sameOrigin(req: IncomingMessage): boolean {
  const host = req.headers.host;
  const from = req.headers.origin ?? req.headers.referer;
  if (!host || !from) return false;
  try {
    return new URL(from).host === host;
  } catch {
    return false;
  }
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

function cookies(header: string | undefined): Map<string, string> {
  const jar = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) jar.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return jar;
}
