// A job's page in the dashboard (`#/job/ID`), from /api/job?id=ID, asked again
// every second while it is open (the log's live tail): status per replica with
// retries and preemptions, resources asked and not enforced, its processes, its
// tasks (counts and the failed ones), its meshes and actors, and its whole log,
// filtered by replica and by text.
export const JOB_PAGE_SCRIPT = String.raw`
var jobTimer = null, jobShown = null, jobData = null;
function openJob(id) {
  if (jobShown !== id) { jobData = null; document.getElementById("job-title").textContent = "Job " + id; resetLogFilters(); }
  jobShown = id;
  if (!jobTimer) jobTimer = setInterval(loadJob, 1000);
  loadJob();
}
function closeJob() {
  if (jobTimer) clearInterval(jobTimer);
  jobTimer = null;
  jobShown = null;
}
function loadJob() {
  var id = jobShown;
  if (id == null) return;
  fetch("/api/job?id=" + encodeURIComponent(id))
    .then(function (r) { if (r.status === 401) { location.reload(); throw new Error("signed out"); } return r.json(); })
    .then(function (d) { if (jobShown === id) { jobData = d; drawJob(d); } })
    .catch(function () {});
}
function resetLogFilters() {
  document.getElementById("log-replica").value = "";
  document.getElementById("log-search").value = "";
}
function drawJob(d) {
  if (d.error) return fill("job-summary", [el("p", { "class": "error", text: d.error })]);
  var j = d.job;
  var summary = [
    el("p", {}, [status(j.status, "status"), " · " + j.name + " · " + j.tasks.length + " replica" + (j.tasks.length === 1 ? "" : "s") +
      " · " + j.failures + " failed attempts · " + j.preemptions + " preemptions"]),
    el("p", {}, ["Asked: " + j.request]),
    el("p", { "class": "muted" }, ["Not enforced: " + (j.notEnforced && j.notEnforced.length ? j.notEnforced.join("; ") : "nothing: all of it is enforced")]),
  ];
  if (j.headline) summary.push(el("p", {}, ["Error: ", el("span", { "class": "headline error", text: j.headline })]));
  fill("job-summary", summary);
  fill("job-replicas", [table(["Replica", "Status", "Retries (failures)", "Preemptions", "Error"], j.tasks.map(function (t, i) {
    var e = j.replicaErrors[i];
    return { attrs: { "data-replica": String(i) }, cells: [i, status(t.status, "status"), t.failures || 0, t.preemptions || 0,
      el("span", {}, [e ? el("span", { "class": "message", text: (e.errorClass ? e.errorClass + ": " : "") + e.message }) : null,
        t.errorMessage ? el("div", { "class": "muted", text: t.errorMessage }) : null])] };
  }))]);
  var procs = j.reports.processes;
  fill("job-processes", procs.length ? [unreadableReports(j), table(["Pid", "Host", "Replica", "Role", "State", "CPU s", "RSS"], procs.map(function (p) {
    return { attrs: { "data-pid": String(p.pid) }, cells: [p.pid, p.host, p.replica == null ? "" : p.replica, p.parentAddr ? "worker" : "replica process",
      status(p.state, "state"), p.cpuSeconds.toFixed(2), bytes(p.rssBytes)] };
  }))] : [unreadableReports(j), none("no process of this job reported (it does not use fray's runtime, or has not started)")]);
  var t = j.reports.tasks;
  var taskNodes = [table(["Submitted", "Queued or running", "Done", "Failed", "Retried"], [{ cells: [t.submitted, t.inFlight, t.done, t.failed, t.retried] }])];
  if (t.failedTasks.length) taskNodes.push(table(["Task", "Error", "Causes", "Where"], t.failedTasks.map(function (f) {
    return { attrs: { "data-task": f.name }, cells: [f.name + " (" + f.id + ")", el("span", { "class": "message", text: f.errorClass + ": " + f.message }),
      el("ol", { "class": "causes" }, f.causes.map(function (c) { return el("li", { text: c }); })),
      where({ replica: f.where.replica, pid: f.workerPid != null ? f.workerPid : f.where.pid, host: f.where.host })] };
  })));
  fill("job-tasks", taskNodes);
  var meshes = j.reports.meshes.filter(function (m) { return showInternal() || !internal(m.name, m.id); });
  fill("job-actors", meshes.length ? [table(["Mesh", "Class", "Ranks", "Failed", "Owner", "Processes"], meshes.map(function (m) {
    var failed = m.members.filter(function (x) { return x.failed; });
    var pids = m.members.map(function (x) { return memberPid(x, m.owner, false); }).filter(function (x, i, a) { return a.indexOf(x) === i; });
    return { attrs: { "data-mesh": m.name }, cells: [m.name, m.className || "", m.members.length,
      failed.map(function (x) { return x.rank + (x.causes ? ": " + x.causes[0] : ""); }).join("; "),
      where(m.owner), pids.slice(0, 16).join(", ") + (pids.length > 16 ? ", …" : "")] };
  }))] : [none("no meshes" + (showInternal() ? "" : " (fray's own are hidden)"))]);
  drawLog();
}
function drawLog() {
  if (!jobData || !jobData.log) return;
  var replicaSelect = document.getElementById("log-replica");
  var n = jobData.job.tasks.length;
  if (replicaSelect.options.length !== n + 1) {
    var chosen = replicaSelect.value;
    replicaSelect.replaceChildren(el("option", { value: "", text: "every replica" }));
    for (var i = 0; i < n; i++) replicaSelect.appendChild(el("option", { value: String(i), text: "replica " + i }));
    replicaSelect.value = chosen;
  }
  var replica = replicaSelect.value, text = document.getElementById("log-search").value.toLowerCase();
  var prefix = replica === "" ? null : "[replica-" + replica + "]";
  var lines = jobData.log.filter(function (l) { return (!prefix || l.indexOf(prefix) === 0) && (!text || l.toLowerCase().indexOf(text) >= 0); });
  var pre = document.getElementById("job-log");
  var atEnd = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
  pre.textContent = lines.join("\n");
  if (document.getElementById("log-follow").checked && atEnd) pre.scrollTop = pre.scrollHeight;
  document.getElementById("log-count").textContent = lines.length + " of " + jobData.log.length + " lines" +
    (jobData.logSkipped ? " (the first " + jobData.logSkipped + " left out)" : "");
}
document.getElementById("log-replica").addEventListener("change", drawLog);
document.getElementById("log-search").addEventListener("input", drawLog);
`;
