// The dashboard page's charts, in plain SVG (no library): one small line chart
// per figure of the state's `series` (dashboard/series.ts) over the minutes it
// keeps, each line a <polyline> whose points are the samples that have the
// figure; per-process CPU and memory get a line per process (the busiest few).
export const CHARTS_SCRIPT = String.raw`
var SVG = "http://www.w3.org/2000/svg";
var COLORS = ["#2f6fdd", "#d2452f", "#1e7b34", "#8a5a00", "#7b3fb3", "#0f8a8a", "#b3265e", "#555d6e"];
var MAX_PROCESS_LINES = 6;
function svg(tag, attrs) {
  var e = document.createElementNS(SVG, tag);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  return e;
}
function short(n) {
  if (n == null || !isFinite(n)) return "";
  var a = Math.abs(n);
  if (a >= 1e9) return (n / 1e9).toFixed(1) + "G";
  if (a >= 1e6) return (n / 1e6).toFixed(1) + "M";
  if (a >= 1e3) return (n / 1e3).toFixed(1) + "k";
  return a >= 10 ? n.toFixed(0) : n.toFixed(2);
}
/** A chart of lines [{ name, values: [[time, value]…] }]; empty lines are left out. */
function chart(id, title, unit, lines) {
  var W = 320, H = 120, L = 42, B = 18, T = 6;
  lines = lines.filter(function (l) { return l.values.length > 0; });
  var box = el("figure", { "class": "chart", "data-chart": id }, [el("figcaption", { text: title + (unit ? " (" + unit + ")" : "") })]);
  var root = svg("svg", { viewBox: "0 0 " + W + " " + H, width: String(W), height: String(H), role: "img", "aria-label": title, "data-chart": id });
  var all = [];
  lines.forEach(function (l) { all = all.concat(l.values); });
  if (!all.length) {
    var empty = svg("text", { x: String(W / 2), y: String(H / 2), "text-anchor": "middle", fill: "#7a8396", "font-size": "11" });
    empty.textContent = "no data yet";
    root.appendChild(empty);
    box.appendChild(root);
    return box;
  }
  var t0 = Math.min.apply(null, all.map(function (p) { return p[0]; })), t1 = Math.max.apply(null, all.map(function (p) { return p[0]; }));
  var vmax = Math.max.apply(null, all.map(function (p) { return p[1]; }));
  if (!(vmax > 0)) vmax = 1;
  if (t1 === t0) t1 = t0 + 1;
  function x(t) { return L + ((t - t0) / (t1 - t0)) * (W - L - 4); }
  function y(v) { return T + (1 - v / vmax) * (H - T - B); }
  root.appendChild(svg("line", { x1: String(L), y1: String(H - B), x2: String(W - 4), y2: String(H - B), stroke: "#c5cad3" }));
  root.appendChild(svg("line", { x1: String(L), y1: String(T), x2: String(L), y2: String(H - B), stroke: "#c5cad3" }));
  [[vmax, T + 8], [0, H - B]].forEach(function (tick) {
    var label = svg("text", { x: String(L - 4), y: String(tick[1]), "text-anchor": "end", fill: "#4a5366", "font-size": "10" });
    label.textContent = short(tick[0]);
    root.appendChild(label);
  });
  var span = svg("text", { x: String(W - 4), y: String(H - 4), "text-anchor": "end", fill: "#7a8396", "font-size": "10" });
  span.textContent = "last " + Math.max(1, Math.round((t1 - t0) / 1000)) + " s";
  root.appendChild(span);
  var legend = el("div", { "class": "legend" });
  lines.forEach(function (l, i) {
    var color = COLORS[i % COLORS.length];
    var points = l.values.map(function (p) { return x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1); }).join(" ");
    var line = svg("polyline", { points: points, fill: "none", stroke: color, "stroke-width": "1.5",
      "data-line": l.name, "data-points": String(l.values.length) });
    var tip = svg("title", {});
    tip.textContent = l.name + ": " + short(l.values[l.values.length - 1][1]) + " now";
    line.appendChild(tip);
    root.appendChild(line);
    var now = short(l.values[l.values.length - 1][1]);
    legend.appendChild(el("span", { "class": "key", "data-color": String(i % COLORS.length), text: "■ " + l.name + " " + now }));
  });
  box.appendChild(root);
  box.appendChild(legend);
  return box;
}
function seriesOf(points, field) {
  return points.filter(function (p) { return p[field] != null; }).map(function (p) { return [p.time, p[field]]; });
}
/** A line per process, for the processes that use the most of it now. */
function perProcess(series, field, scale) {
  var last = series.points.length ? series.points[series.points.length - 1][field] : {};
  var keys = Object.keys(last).sort(function (a, b) { return last[b] - last[a]; }).slice(0, MAX_PROCESS_LINES);
  return keys.map(function (k) {
    var values = series.points.filter(function (p) { return p[field][k] != null; }).map(function (p) { return [p.time, p[field][k] * scale]; });
    return { name: series.processes[k] || k, values: values };
  });
}
function drawCharts(s) {
  var series = s.series;
  if (!series) return fill("charts", [none("no chart source given")], s.errors.series);
  var p = series.points;
  var nodes = [
    chart("tasks", "Tasks finished", "per s", [{ name: "tasks/s", values: seriesOf(p, "tasksPerSec") }]),
    chart("messages", "Endpoint messages", "per s", [{ name: "messages/s", values: seriesOf(p, "messagesPerSec") }]),
    chart("bytes", "Bytes sent", "per s", [{ name: "frames", values: seriesOf(p, "bytesPerSec") }]),
    chart("latency", "Endpoint latency", "ms", [{ name: "p50", values: seriesOf(p, "p50Ms") }, { name: "p99", values: seriesOf(p, "p99Ms") }]),
    chart("transfers", "RemoteBuffer and collective bytes", "per s", [
      { name: "RemoteBuffer", values: seriesOf(p, "bufferBytesPerSec") }, { name: "collectives", values: seriesOf(p, "collectiveBytesPerSec") }]),
    chart("cpu", "CPU per process", "% of a core", perProcess(series, "cpuPercent", 1)),
    chart("rss", "Memory per process", "RSS MiB", perProcess(series, "rssBytes", 1 / 1048576)),
  ];
  var off = "Messages, bytes, latency and transfers come from the metrics, which FRAY_METRICS=0 turned off (in the jobs and this dashboard's process).";
  var note = series.metricsOn ? [] : [none(off)];
  fill("charts", note.concat([el("div", { "class": "charts" }, nodes)]), s.errors.series);
}
`;
