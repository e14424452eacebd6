// The dashboard's two pages, served as they are (no build step, nothing from
// another site): the signed-in page, whose script (dashboard/script.ts) draws
// the sections from /api/state and /api/events, and the login form.
import { DASHBOARD_SCRIPT } from "./script.ts";

const STYLE = `
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
  header { background: #1d2330; color: #fff; padding: 10px 20px; display: flex; gap: 16px; align-items: center; }
  header h1 { font-size: 17px; margin: 0; flex: 1; }
  header form { margin: 0; }
  main { padding: 12px 20px; display: grid; gap: 14px; }
  section { background: #fff; border: 1px solid #dde1e8; border-radius: 6px; padding: 10px 14px; overflow: auto; }
  section h2 { font-size: 15px; margin: 0 0 8px; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #eef0f3; vertical-align: top; }
  th { font-weight: 600; color: #4a5366; }
  pre { margin: 4px 0; background: #f1f3f6; padding: 6px; max-height: 16em; overflow: auto; }
  .state-failed, .state-dead, .status-failed, .status-stopped { color: #b3261e; font-weight: 600; }
  .state-alive, .status-succeeded { color: #1e7b34; }
  .status-running, .state-restarting, .state-starting { color: #8a5a00; }
  .failure { border-left: 3px solid #b3261e; padding: 4px 10px; margin: 6px 0; list-style: none; }
  .failure ol { margin: 2px 0; color: #4a5366; }
  .muted { color: #7a8396; }
  .error { color: #b3261e; }
  #live { font-size: 12px; }
  ul.tree { margin: 2px 0 2px 6px; padding-left: 14px; }
`;

function page(title: string, nonce: string, body: string, script = ""): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style nonce="${nonce}">${STYLE}</style></head>
<body>${body}${script ? `<script nonce="${nonce}">${script}</script>` : ""}</body></html>`;
}

/** The signed-in page; its script fills the sections in. */
export function dashboardPage(nonce: string): string {
  const section = (id: string, title: string) => `<section id="${id}"><h2>${title}</h2><div class="body muted">loading…</div></section>`;
  return page(
    "Fray dashboard",
    nonce,
    `<header><h1>Fray dashboard</h1><span id="live" class="muted">connecting…</span>
<form method="post" action="/logout"><button type="submit">Sign out</button></form></header>
<main>
${section("jobs", "Jobs")}
${section("topology", "Meshes &amp; topology (hosts → procs → actors)")}
${section("actors", "Actors")}
${section("tasks", "Tasks")}
${section("failures", "Failures")}
${section("latency", "Endpoint latency")}
</main>`,
    DASHBOARD_SCRIPT,
  );
}

/** The login form, with why it is shown. */
export function loginPage(nonce: string, message: string): string {
  return page(
    "Fray dashboard: sign in",
    nonce,
    `<header><h1>Fray dashboard</h1></header>
<main><section id="login"><h2>Sign in</h2>
<p class="${message.startsWith("Wrong") ? "error" : "muted"}" id="login-message">${escapeHtml(message)}</p>
<form method="post" action="/login"><label>Token <input type="password" name="token" autocomplete="current-password" autofocus></label>
<button type="submit">Sign in</button></form></section></main>`,
  );
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
