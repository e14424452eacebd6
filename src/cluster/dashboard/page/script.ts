// The dashboard page's script: draws the overview from a DashboardState
// (dashboard/sources.ts), first from /api/state, then from each `state` event
// of /api/events; `#/job/ID` shows that job's page instead (job.ts),
// and the charts are drawn by charts.ts. Text goes in with textContent
// only: names, messages and log lines come from programs the viewer may not trust.
import { CHARTS_SCRIPT } from "./charts.ts";
import { JOB_PAGE_SCRIPT } from "./job.ts";

const HELPERS = String.raw`
"use strict";
function el(tag, attrs, children) {
  var e = document.createElement(tag);
  for (var k in attrs || {}) { if (k === "text") e.textContent = attrs[k]; else e.setAttribute(k, attrs[k]); }
  (children || []).forEach(function (c) { if (c != null) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
  return e;
}
function table(head, rows) {
  return el("table", {}, [el("thead", {}, [el("tr", {}, head.map(function (h) { return el("th", { text: h }); }))]),
    el("tbody", {}, rows.map(function (r) {
      return el("tr", r.attrs || {}, r.cells.map(function (c) {
        return c instanceof Node ? el("td", {}, [c]) : el("td", { text: c == null ? "" : String(c) });
      }));
    }))]);
}
function fill(id, nodes, error) {
  var body = document.querySelector("#" + id + " .body");
  body.className = "body";
  var shown = nodes.filter(function (n) { return n != null; });
  body.replaceChildren.apply(body, (error ? [el("p", { "class": "error", text: "source failed: " + error })] : []).concat(shown));
}
function none(what) { return el("p", { "class": "muted", text: what }); }
function status(s, prefix) { return el("span", { "class": prefix + "-" + s, text: s }); }
function jobLink(id, text) { return el("a", { href: "#/job/" + encodeURIComponent(id), text: text || id }); }
function bytes(n) {
  if (n == null) return "";
  var u = ["B", "KiB", "MiB", "GiB", "TiB"], i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return (i ? n.toFixed(1) : String(Math.round(n))) + " " + u[i];
}
/** Meshes and actors of fray itself (its job head, task executors, namespace): hidden unless asked for. */
function internal(name, id) { return /^(fray-|ns-info-)/.test(name || "") || /^fray-/.test(id || ""); }
function showInternal() { var t = document.getElementById("show-internal"); return !!(t && t.checked); }
function where(x) {
  var parts = [];
  if (x.replica != null) parts.push("replica " + x.replica);
  if (x.pid != null) parts.push("pid " + x.pid);
  if (x.host) parts.push("on " + x.host);
  return parts.join(" · ");
}
function failureItem(f) {
  var attrs = { "class": "failure", "data-kind": f.kind, "data-time": String(f.time) };
  if (f.jobId) attrs["data-job"] = f.jobId;
  var m = /^mesh '(.*)' rank (\d+)$/.exec(f.what);
  if (m) { attrs["data-mesh"] = m[1]; attrs["data-rank"] = m[2]; }
  var task = /^task (.*)$/.exec(f.what);
  if (task) attrs["data-task"] = task[1];
  var place = [where(f)];
  return el("li", attrs, [
    el("strong", { text: f.what }), f.time ? " at " + new Date(f.time).toLocaleTimeString() : "", ": ",
    f.errorClass ? el("span", { "class": "error-class", text: f.errorClass + ": " }) : null,
    el("span", { "class": "message", text: f.message }),
    el("div", { "class": "where muted" }, f.jobId ? [jobLink(f.jobId, "job " + f.jobId), place[0] ? " · " + place[0] : ""]
      : [el("a", { href: f.kind === "task" ? "#tasks" : "#actors", text: "this dashboard's process" }), place[0] ? " · " + place[0] : ""]),
    f.causes.length > 1 || (f.causes.length === 1 && f.causes[0] !== f.errorClass + ": " + f.message && f.causes[0] !== f.message)
      ? el("ol", { "class": "causes" }, f.causes.map(function (c) { return el("li", { text: c }); })) : null]);
}
`;

const OVERVIEW = String.raw`
function replicas(job) {
  var n = {}; job.tasks.forEach(function (t) { n[t.status] = (n[t.status] || 0) + 1; });
  return Object.keys(n).map(function (s) { return n[s] + " " + s; }).join(", ");
}
function drawFailures(s) {
  if (!s.failures.length) return fill("failures", [none("no failures")], s.errors.runtime || s.errors.jobs);
  fill("failures", [el("ul", { "class": "failures" }, s.failures.map(failureItem))], s.errors.runtime || s.errors.jobs);
}
function drawJobs(s) {
  if (!s.jobs) return fill("jobs", [none("no cluster given to this dashboard")], s.errors.jobs);
  if (!s.jobs.length) return fill("jobs", [none("no jobs yet")]);
  var open = {}; // log tails the viewer opened stay open across updates
  document.querySelectorAll("#jobs tr[data-job] details[open]").forEach(function (d) { open[d.closest("tr").getAttribute("data-job")] = true; });
  fill("jobs", [table(["Job", "Name", "Status", "Replicas", "Tasks", "Request", "Error", "Log tail"], s.jobs.slice().reverse().map(function (j) {
    var tail = j.logTail.length
      ? el("details", open[j.jobId] ? { open: "" } : {}, [
          el("summary", { text: j.logTail.length + (j.logTail.length === 1 ? " line" : " lines") }),
          el("pre", { text: j.logTail.join("\n") }),
        ])
      : "";
    var t = j.reports.tasks, tasks = t.submitted ? t.done + " done, " + t.failed + " failed, " + t.inFlight + " running" : "";
    return { attrs: { "data-job": j.jobId }, cells: [jobLink(j.jobId), j.name, status(j.status, "status"), replicas(j), tasks, j.request,
      el("span", {}, [el("span", { "class": "headline", text: j.headline || "" }), unreadableReports(j)]), tail] };
  }))], s.errors.jobs);
}
/** Report files of the job that could not be read (left out of its figures), or null. */
function unreadableReports(j) {
  var bad = j.reports.unreadable || [];
  return bad.length ? el("div", { "class": "muted unreadable-reports", text: bad.length + " unreadable report file" + (bad.length === 1 ? "" : "s") +
    ": " + bad.map(function (b) { return b.file + " (" + b.error + ")"; }).join("; ") }) : null;
}
function loadOf(s) {
  var m = {}; (s.actorLoad || []).forEach(function (a) { m[a.className ? "class:" + a.className : a.actor] = a; }); return m;
}
function loadCells(l) {
  var of = l.className ? " (all " + l.className + ")" : "";
  return [l.mailboxDepth == null ? "" : l.mailboxDepth + of, l.messagesPerSec == null ? "" : l.messagesPerSec.toFixed(1) + of];
}
/** "pid 4242": a member's process; one at its owner's address is its owner's (owner: {addr, pid}, this process's runtime or a job's process). */
function memberPid(m, owner, self) {
  return m.pid != null ? "pid " + m.pid : owner && m.addr === owner.addr ? "pid " + owner.pid + (self ? " (this process)" : "") : "?";
}
/** One row per actor: mesh members (this process's meshes, then the jobs'), this process's other actors, namespace actors not already shown. */
function actorRows(s) {
  var load = loadOf(s), rows = [], rt = s.runtime, all = showInternal(), shown = {};
  // A namespace actor is also a mesh of the process that hosts it (the namespace service's own dashboard): one row for both.
  var named = {}, byPid = {}, hostedShown = [];
  (s.namespaceActors || []).forEach(function (a) { if (a.name) named[a.name] = a; if (a.pid > 0) byPid[a.pid] = a; });
  function hostedAs(mesh, m) {
    var a = named[mesh.name] || (m.pid != null ? byPid[m.pid] : null);
    return a && a.className === mesh.className ? a : null;
  }
  function meshRows(mesh, job, owner, self) {
    if (!all && internal(mesh.name, mesh.id)) return;
    mesh.members.forEach(function (m) {
      var l = load[mesh.id + "." + m.rank] || load[mesh.name + "[" + m.rank + "]"] || load["class:" + mesh.className] || {};
      var ns = hostedAs(mesh, m), state = m.failed ? "failed" : ns ? ns.state : "alive";
      if (ns) hostedShown.push(ns);
      shown[mesh.id + "." + m.rank] = true;
      rows.push({
        attrs: { "data-actor": mesh.name + "[" + m.rank + "]", title: m.addr },
        cells: [job ? jobLink(job) : "", ns && ns.name ? ns.name + " (namespace)" : mesh.name, mesh.className || "", m.rank, m.host,
          memberPid(m, owner, self), status(state, "state")].concat(loadCells(l)),
      });
    });
  }
  if (rt) rt.meshes.forEach(function (mesh) { meshRows(mesh, null, rt, true); });
  (s.jobs || []).forEach(function (j) { j.reports.meshes.forEach(function (mesh) { meshRows(mesh, j.jobId, mesh.owner, false); }); });
  if (rt) rt.actors.forEach(function (a) {
    if (shown[a.key] || (!all && internal(a.mesh, a.key))) return; // a member of a mesh this process owns: already a row
    var l = load[a.key] || load["class:" + a.className] || {};
    rows.push({ attrs: { "data-actor": a.mesh + "[" + a.rank + "]" },
      cells: ["", a.mesh, a.className, a.rank, rt.host, "pid " + rt.pid + " (this process)", status("alive", "state")].concat(loadCells(l)) });
  });
  (s.namespaceActors || []).forEach(function (a) {
    if (hostedShown.indexOf(a) >= 0) return;
    rows.push({ attrs: { "data-actor": a.name || a.className },
      cells: ["", a.name || "(unnamed)", a.className, 0, a.host, a.pid > 0 ? "pid " + a.pid : "", status(a.state, "state"), "",
        a.restarts + " restarts, " + a.lifetime] });
  });
  return rows;
}
function drawActors(s) {
  var rows = actorRows(s), head = ["Job", "Mesh / name", "Class", "Rank", "Host", "Process", "State", "Mailbox", "Msgs/s"];
  fill("actors", rows.length ? [table(head, rows)] : [none(showInternal() ? "no actors" : "no actors (fray's own are hidden)")],
    s.errors.runtime || s.errors.namespaceActors || s.errors.actorLoad);
}
function drawTopology(s) {
  var hosts = {}, all = showInternal(), rt = s.runtime;
  function proc(host, name) { var h = hosts[host] = hosts[host] || {}; return h[name] = h[name] || []; }
  var meshes = [];
  function add(mesh, job, owner) {
    if (!all && internal(mesh.name, mesh.id)) return;
    var failed = mesh.members.filter(function (x) { return x.failed; }).length;
    meshes.push(el("li", { "data-mesh": mesh.name }, [(job ? "job " + job + ": " : "") + mesh.name + " — " + (mesh.className || "?") + " " +
      JSON.stringify(mesh.extent) + ", " + mesh.members.length + " ranks, " + failed + " failed"]));
    mesh.members.forEach(function (m) { proc(m.host, memberPid(m, owner, !job)).push(mesh.name + "[" + m.rank + "]" + (m.failed ? " ✗ failed" : "")); });
  }
  if (rt) rt.meshes.forEach(function (m) { add(m, null, rt); });
  (s.jobs || []).forEach(function (j) { j.reports.meshes.forEach(function (m) { add(m, j.jobId, m.owner); }); });
  (s.namespaceActors || []).forEach(function (a) { if (a.pid > 0) proc(a.host, "pid " + a.pid).push((a.name || a.className) + " (" + a.state + ")"); });
  var names = Object.keys(hosts);
  if (!names.length) return fill("topology", [none(all ? "no meshes" : "no meshes (fray's own are hidden)")], s.errors.runtime);
  fill("topology", [el("ul", { "class": "tree" }, meshes), el("ul", { "class": "tree" }, names.map(function (h) {
    var procs = Object.keys(hosts[h]);
    return el("li", {}, [el("details", { open: "" }, [el("summary", { text: "host " + h + " — " + procs.length + " processes" }),
      el("ul", { "class": "tree" }, procs.map(function (p) { return el("li", { text: p + ": " + hosts[h][p].join(", ") }); }))])]);
  }))], s.errors.runtime);
}
function drawTasks(s) {
  if (!s.tasks) return fill("tasks", [none("no task source given")], s.errors.tasks);
  var c = s.tasks.counts, nodes = [table(Object.keys(c), [{ cells: Object.keys(c).map(function (k) { return c[k]; }) }])];
  if (s.tasks.recent && s.tasks.recent.length) {
    var recent = s.tasks.recent.map(function (t) {
      return { attrs: { "data-task": t.name }, cells: [t.id, t.name, status(t.state, "state"), t.error || ""] };
    });
    nodes.push(table(["Task", "Name", "State", "Error"], recent));
  }
  fill("tasks", nodes, s.errors.tasks);
}
function ms(x) { return x == null ? "" : x.toFixed(2); }
function drawLatency(s) {
  if (!s.latency) return fill("latency", [none("no latency source given (metrics off)")], s.errors.latency);
  if (!s.latency.length) return fill("latency", [none("no calls yet (none are counted where FRAY_METRICS=0)")]);
  var latency = s.latency.map(function (l) { return { cells: [l.endpoint, l.count, ms(l.meanMs), ms(l.p50Ms), ms(l.p99Ms)] }; });
  fill("latency", [table(["Endpoint", "Calls", "Mean ms", "p50 ms", "p99 ms"], latency)], s.errors.latency);
}
function drawObjects(s) {
  var o = s.objects;
  if (!o) return fill("objects", [none("no object source given (metrics off)")], s.errors.objects);
  var paths = Object.keys(o.transferBytes);
  fill("objects", [table(["In memory", "Spilled now", "Spilled so far", "Restored so far"].concat(paths.map(function (p) { return "Read by " + p; })),
    [{ cells: [bytes(o.heldBytes), bytes(o.spilledBytes), bytes(o.spilledBytesTotal), bytes(o.restoredBytesTotal)]
      .concat(paths.map(function (p) { return bytes(o.transferBytes[p]); })) }])], s.errors.objects);
}
var latest = null;
function draw(s) {
  latest = s;
  [drawFailures, drawCharts, drawJobs, drawTopology, drawActors, drawTasks, drawLatency, drawObjects].forEach(function (f) { f(s); });
  document.getElementById("live").textContent = "updated " + new Date(s.time).toLocaleTimeString();
}
document.getElementById("show-internal").addEventListener("change", function () { if (latest) draw(latest); if (jobData && jobShown) drawJob(jobData); });
function route() {
  var m = /^#\/job\/(.+)$/.exec(location.hash);
  document.getElementById("overview").hidden = !!m;
  document.getElementById("job-page").hidden = !m;
  if (m) openJob(decodeURIComponent(m[1])); else closeJob();
}
window.addEventListener("hashchange", route);
route();
fetch("/api/state")
  .then(function (r) { if (r.status === 401) { location.reload(); throw new Error("signed out"); } return r.json(); })
  .then(draw)
  .catch(function () {});
var events = new EventSource("/api/events");
events.addEventListener("state", function (e) { draw(JSON.parse(e.data)); });
events.onerror = function () {
  document.getElementById("live").textContent = "disconnected; retrying…";
  fetch("/api/state").then(function (r) { if (r.status === 401) location.reload(); }).catch(function () {});
};
`;

export const DASHBOARD_SCRIPT = HELPERS + CHARTS_SCRIPT + JOB_PAGE_SCRIPT + OVERVIEW;
