// The dashboard page's script: draws every section from a DashboardState
// (dashboard/sources.ts), first from /api/state, then from each `state` event
// of /api/events. Text goes in with textContent only: names, messages and log
// lines come from programs the viewer may not trust.
export const DASHBOARD_SCRIPT = String.raw`
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
  body.replaceChildren.apply(body, (error ? [el("p", { "class": "error", text: "source failed: " + error })] : []).concat(nodes));
}
function none(what) { return el("p", { "class": "muted", text: what }); }
function status(s, prefix) { return el("span", { "class": prefix + "-" + s, text: s }); }
function replicas(job) {
  var n = {}; job.tasks.forEach(function (t) { n[t.status] = (n[t.status] || 0) + 1; });
  return Object.keys(n).map(function (s) { return n[s] + " " + s; }).join(", ");
}
function drawJobs(s) {
  if (!s.jobs) return fill("jobs", [none("no cluster given to this dashboard")], s.errors.jobs);
  if (!s.jobs.length) return fill("jobs", [none("no jobs yet")]);
  var open = {}; // log tails the viewer opened stay open across updates
  document.querySelectorAll("#jobs tr[data-job] details[open]").forEach(function (d) { open[d.closest("tr").getAttribute("data-job")] = true; });
  fill("jobs", [table(["Job", "Name", "Status", "Replicas", "Request", "Error", "Log tail"], s.jobs.slice().reverse().map(function (j) {
    var tail = j.logTail.length
      ? el("details", open[j.jobId] ? { open: "" } : {}, [
          el("summary", { text: j.logTail.length + (j.logTail.length === 1 ? " line" : " lines") }),
          el("pre", { text: j.logTail.join("\n") }),
        ])
      : "";
    return { attrs: { "data-job": j.jobId }, cells: [j.jobId, j.name, status(j.status, "status"), replicas(j), j.request, j.errorMessage || "", tail] };
  }))], s.errors.jobs);
}
function loadOf(s) {
  var m = {}; (s.actorLoad || []).forEach(function (a) { m[a.className ? "class:" + a.className : a.actor] = a; }); return m;
}
function loadCells(l) {
  var of = l.className ? " (all " + l.className + ")" : "";
  return [l.mailboxDepth == null ? "" : l.mailboxDepth + of, l.messagesPerSec == null ? "" : l.messagesPerSec.toFixed(1) + of];
}
function drawActors(s) {
  var load = loadOf(s), rows = [], rt = s.runtime;
  if (rt) {
    rt.meshes.forEach(function (mesh) {
      mesh.members.forEach(function (m) {
        var l = load[mesh.id + "." + m.rank] || load[mesh.name + "[" + m.rank + "]"] || load["class:" + mesh.className] || {};
        rows.push({
          attrs: { "data-actor": mesh.name + "[" + m.rank + "]" },
          cells: [mesh.name, mesh.className || "", m.rank, m.host, m.addr, status(m.failed ? "failed" : "alive", "state")].concat(loadCells(l)),
        });
      });
    });
    rt.actors.forEach(function (a) {
      var l = load[a.key] || load["class:" + a.className] || {};
      rows.push({
        attrs: { "data-actor": a.mesh + "[" + a.rank + "]" },
        cells: [a.mesh, a.className, a.rank, rt.host, rt.addr + " (this process)", status("alive", "state")].concat(loadCells(l)),
      });
    });
  }
  (s.namespaceActors || []).forEach(function (a) {
    rows.push({
      attrs: { "data-actor": a.name || a.className },
      cells: [a.name || "(unnamed)", a.className, 0, a.host, "pid " + a.pid, status(a.state, "state"), "", a.restarts + " restarts, " + a.lifetime],
    });
  });
  var head = ["Mesh / name", "Class", "Rank", "Host", "Proc", "State", "Mailbox", "Msgs/s"];
  fill("actors", rows.length ? [table(head, rows)] : [none("no actors")], s.errors.runtime || s.errors.namespaceActors || s.errors.actorLoad);
}
function drawTopology(s) {
  var hosts = {};
  function proc(host, name) { var h = hosts[host] = hosts[host] || {}; return h[name] = h[name] || []; }
  var rt = s.runtime;
  if (rt) {
    rt.meshes.forEach(function (mesh) {
      mesh.members.forEach(function (m) { proc(m.host, m.addr).push(mesh.name + "[" + m.rank + "]" + (m.failed ? " ✗ failed" : "")); });
    });
    rt.actors.forEach(function (a) { proc(rt.host, rt.addr + " (this process, pid " + rt.pid + ")").push(a.mesh + "[" + a.rank + "]"); });
  }
  (s.namespaceActors || []).forEach(function (a) { if (a.pid > 0) proc(a.host, "pid " + a.pid).push((a.name || a.className) + " (" + a.state + ")"); });
  var names = Object.keys(hosts);
  if (!names.length) return fill("topology", [none("no meshes")], s.errors.runtime);
  var meshes = rt ? rt.meshes.map(function (m) {
    var failed = m.members.filter(function (x) { return x.failed; }).length;
    return el("li", {}, [m.name + " — " + (m.className || "?") + " " + JSON.stringify(m.extent) + ", " + m.members.length + " ranks, " + failed + " failed"]);
  }) : [];
  fill("topology", [el("ul", { "class": "tree" }, meshes), el("ul", { "class": "tree" }, names.map(function (h) {
    var procs = Object.keys(hosts[h]);
    return el("li", {}, [el("details", { open: "" }, [el("summary", { text: "host " + h + " — " + procs.length + " procs" }),
      el("ul", { "class": "tree" }, procs.map(function (p) { return el("li", { text: p + ": " + hosts[h][p].join(", ") }); }))])]);
  }))], s.errors.runtime);
}
function drawTasks(s) {
  if (!s.tasks) return fill("tasks", [none("no task source given")], s.errors.tasks);
  var c = s.tasks.counts, nodes = [table(Object.keys(c), [{ cells: Object.keys(c).map(function (k) { return c[k]; }) }])];
  if (s.tasks.recent && s.tasks.recent.length) {
    var recent = s.tasks.recent.map(function (t) { return { cells: [t.id, t.name, status(t.state, "state"), t.error || ""] }; });
    nodes.push(table(["Task", "Name", "State", "Error"], recent));
  }
  fill("tasks", nodes, s.errors.tasks);
}
function drawFailures(s) {
  var list = s.runtime ? s.runtime.failures.slice().reverse() : [];
  if (!list.length) return fill("failures", [none("no failures")], s.errors.runtime);
  fill("failures", [el("ul", {}, list.map(function (f) {
    return el("li", { "class": "failure", "data-mesh": f.mesh, "data-rank": String(f.rank) }, [
      el("strong", { text: "mesh '" + f.mesh + "' rank " + f.rank }), " at " + new Date(f.time).toLocaleTimeString() + ": ",
      el("span", { "class": "message", text: f.message }),
      el("ol", {}, f.causes.map(function (c) { return el("li", { text: c }); }))]);
  }))], s.errors.runtime);
}
function ms(x) { return x == null ? "" : x.toFixed(2); }
function drawLatency(s) {
  if (!s.latency) return fill("latency", [none("no latency source given (metrics off)")], s.errors.latency);
  if (!s.latency.length) return fill("latency", [none("no calls yet")]);
  var latency = s.latency.map(function (l) { return { cells: [l.endpoint, l.count, ms(l.meanMs), ms(l.p50Ms), ms(l.p99Ms)] }; });
  fill("latency", [table(["Endpoint", "Calls", "Mean ms", "p50 ms", "p99 ms"], latency)], s.errors.latency);
}
function draw(s) {
  [drawJobs, drawTopology, drawActors, drawTasks, drawFailures, drawLatency].forEach(function (f) { f(s); });
  document.getElementById("live").textContent = "updated " + new Date(s.time).toLocaleTimeString();
}
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
