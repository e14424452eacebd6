// The dashboard's two pages, served as they are (no build step, nothing from
// another site): the signed-in page, whose script (script.ts) draws
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
  [hidden] { display: none !important; }
  #live { font-size: 12px; }
  header a, header label { color: #fff; }
  ul.tree { margin: 2px 0 2px 6px; padding-left: 14px; }
  ul.failures { padding: 0; margin: 0; }
  .failure .error-class { font-weight: 600; color: #b3261e; }
  .failure .message { font-weight: 600; }
  .where { font-size: 12px; }
  .state-gone, .state-exited { color: #7a8396; }
  .charts { display: flex; flex-wrap: wrap; gap: 10px; }
  figure.chart { margin: 0; border: 1px solid #eef0f3; border-radius: 4px; padding: 4px 6px; }
  figure.chart figcaption { font-size: 12px; font-weight: 600; color: #4a5366; }
  .legend { font-size: 11px; display: flex; flex-wrap: wrap; gap: 2px 8px; max-width: 320px; }
  .key[data-color="0"] { color: #2f6fdd; } .key[data-color="1"] { color: #d2452f; } .key[data-color="2"] { color: #1e7b34; }
  .key[data-color="3"] { color: #8a5a00; } .key[data-color="4"] { color: #7b3fb3; } .key[data-color="5"] { color: #0f8a8a; }
  .key[data-color="6"] { color: #b3265e; } .key[data-color="7"] { color: #555d6e; }
  #job-log { max-height: 32em; white-space: pre-wrap; }
  .log-filters { display: flex; gap: 10px; align-items: center; margin-bottom: 4px; }
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
    `<header><h1><a href="#">Fray dashboard</a></h1>
<label><input type="checkbox" id="show-internal"> show fray's own meshes</label>
<span id="live" class="muted">connecting…</span>
<form method="post" action="/logout"><button type="submit">Sign out</button></form></header>
<main id="overview">
${section("failures", "Failures (newest first)")}
${section("charts", "Over the last minutes")}
${section("jobs", "Jobs")}
${section("topology", "Meshes &amp; topology (hosts → processes → actors)")}
${section("actors", "Actors")}
${section("tasks", "Tasks")}
${section("latency", "Endpoint latency")}
${section("objects", "Objects held by processes (large task results)")}
</main>
<main id="job-page" hidden>
<p><a href="#">← all jobs</a></p>
<section id="job-summary"><h2 id="job-title">Job</h2><div class="body muted">loading…</div></section>
${section("job-replicas", "Replicas")}
${section("job-tasks", "Tasks")}
${section("job-processes", "Processes")}
${section("job-actors", "Meshes &amp; actors")}
<section id="job-log-section"><h2>Log</h2>
<div class="log-filters"><select id="log-replica" aria-label="replica"></select>
<input type="search" id="log-search" placeholder="filter lines" aria-label="filter lines">
<label><input type="checkbox" id="log-follow" checked> follow</label><span id="log-count" class="muted"></span></div>
<pre id="job-log"></pre></section>
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
