// The bearer token of a queue server, compared in constant time.
import { createHash, timingSafeEqual } from "node:crypto";
import { config, settingName } from "../runtime/face/settings.ts";

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Does `header` (an Authorization header) carry `token`? */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/.exec(header ?? "")?.[1];
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

/** The token for a queue server or client: the option, else FRAY_TOKEN. Throws naming both if neither is set. */
export function queueToken(option: string | undefined, who: string): string {
  const token = option ?? config.token;
  if (!token) throw new TypeError(`${who} needs a token (it guards a queue anyone on the network could reach): pass { token } or set ${settingName("token")}`);
  return token;
}
