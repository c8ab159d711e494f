// The job browser: pages of /api/jobs under the filters of its form, bulk actions on what the
// filters select (POST /api/jobs/bulk, with the token), and a chart of /api/throughput. Uses the
// helpers of dashboard.js, which loads first ($, cell, fill, jobLink, authHeaders, say).
"use strict";

const browser = { cursor: null, next: null, page: 1 };
const chartColors = ["#1f6feb", "#b42318", "#1a7f37", "#9a6700", "#8250df", "#bf3989", "#0a7ea4", "#57606a"];

/// The filters as the API's fields; empty ones left out.
function browserFilters() {
  const fields = {};
  const time = (id) => {
    const value = $(id).value;
    return value ? new Date(value).toISOString().replace(/\.\d{3}Z$/, "Z") : "";
  };
  const entries = [["state", $("browser-state").value], ["kind", $("browser-kind").value.trim()],
    ["queue", $("browser-queue").value.trim()], ["q", $("browser-search").value.trim()],
    ["enqueuedAfter", time("browser-enqueued-after")], ["finishedAfter", time("browser-finished-after")]];
  for (const [key, value] of entries) if (value) fields[key] = value;
  return fields;
}

async function loadJobs() {
  const fields = browserFilters();
  if (browser.cursor) fields.after = browser.cursor;
  // encodeURIComponent, not URLSearchParams: the server reads `+` as itself, not as a space.
  const query = Object.entries(fields).map(([key, value]) => key + "=" + encodeURIComponent(value)).join("&");
  const response = await fetch("/api/jobs?" + query, { headers: authHeaders() });
  const body = await response.text();
  if (!response.ok) {
    let reason = body;
    try { reason = JSON.parse(body).error.message; } catch (_) { /* not JSON: the text itself */ }
    say(`jobs: ${reason} (${response.status})`, "error");
    return;
  }
  const page = JSON.parse(body);
  const time = (value) => value ? new Date(value).toLocaleString() : "";
  fill("browser", page.jobs.map((job) => {
    const row = document.createElement("tr");
    row.dataset.state = job.state;
    const name = document.createElement("td");
    name.append(jobLink(job.name, job.id || job.name));
    row.append(name, cell(job.state), cell(job.kind ?? (job.isBulk ? "(bulk)" : "")), cell(job.queue ?? (job.kind ? "default" : "")),
      cell(time(job.enqueuedAt)), cell(time(job.finishedAt)), cell(job.attempts), cell(job.host ?? ""));
    return row;
  }), page.next ? "none on this page: the next one goes on looking" : "no job matches");
  browser.next = page.next;
  $("browser-next").disabled = !page.next;
  $("browser-page").textContent = `page ${browser.page}, ${page.jobs.length} jobs from the ${page.source}` + (page.next ? ", more after" : "");
}

function firstPage() {
  browser.cursor = null;
  browser.page = 1;
  loadJobs();
}

$("browser-filters").addEventListener("submit", (event) => { event.preventDefault(); firstPage(); });
$("browser-newest").addEventListener("click", firstPage);
$("browser-next").addEventListener("click", () => {
  if (!browser.next) return;
  browser.cursor = browser.next;
  browser.page += 1;
  loadJobs();
});

for (const button of document.querySelectorAll("#browser-section button[data-bulk]")) {
  button.addEventListener("click", async () => {
    const action = button.dataset.bulk;
    const response = await fetch("/api/jobs/bulk", {
      method: "POST",
      headers: { ...authHeaders(), "Content-Type": "application/json" },
      body: JSON.stringify({ action, ...browserFilters() }),
    });
    const text = await response.text();
    if (response.ok) {
      const outcome = JSON.parse(text);
      say(`bulk ${action}: ${outcome.acted} jobs` + (outcome.skipped ? `, ${outcome.skipped} skipped` : "") +
        (outcome.next != null ? "; more remain, post again" : ""));
    } else {
      let reason = text;
      try { reason = JSON.parse(text).error.message; } catch (_) { /* not JSON: the text itself */ }
      say(`bulk ${action}: refused (${response.status}) ${reason}`, "error");
    }
    firstPage();
    loadFailed();
  });
}

function svg(name, attributes, text) {
  const element = document.createElementNS("http://www.w3.org/2000/svg", name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text != null) element.textContent = text;
  return element;
}

/// Left: a line per kind of the jobs finished each minute. Right: a bar per kind for its p50
/// duration, with its p95 as a thinner bar over it.
async function loadChart() {
  const response = await fetch("/api/throughput?minutes=60", { headers: authHeaders() });
  if (!response.ok) return;
  const statistics = await response.json();
  const chart = $("kind-chart");
  const kinds = statistics.kinds;
  const parts = [svg("text", { x: 4, y: 12 }, "finished per minute"), svg("text", { x: 484, y: 12 }, "duration p50 / p95 (s)")];
  const most = Math.max(1, ...kinds.flatMap((kind) => kind.perMinute));
  const slowest = Math.max(0.001, ...kinds.map((kind) => kind.p95));
  kinds.forEach((kind, index) => {
    const color = chartColors[index % chartColors.length];
    const points = kind.perMinute.map((count, minute) => `${4 + minute * (460 / 59)},${170 - (count / most) * 150}`).join(" ");
    const line = svg("polyline", { points, fill: "none", stroke: color, "stroke-width": 1.5 });
    line.dataset.kind = kind.kind;
    line.append(svg("title", {}, `${kind.kind}: ${kind.finished} finished`));
    const y = 22 + index * 18;
    const bar = svg("rect", { x: 484, y, width: Math.max(1, (kind.p50 / slowest) * 150), height: 12, fill: color, opacity: 0.5 });
    bar.append(svg("title", {}, `${kind.kind}: p50 ${kind.p50.toFixed(3)} s`));
    const tail = svg("rect", { x: 484, y: y + 4, width: Math.max(1, (kind.p95 / slowest) * 150), height: 4, fill: color });
    tail.append(svg("title", {}, `${kind.kind}: p95 ${kind.p95.toFixed(3)} s`));
    const label = svg("text", { x: 640, y: y + 10 }, `${kind.kind} ${kind.p50.toFixed(2)}/${kind.p95.toFixed(2)}`);
    parts.push(line, bar, tail, label);
  });
  chart.replaceChildren(...parts);
  $("kind-chart-note").textContent = kinds.length === 0 ? "no job finished in the last hour"
    : `${kinds.reduce((sum, kind) => sum + kind.finished, 0)} jobs finished` + (statistics.truncated ? ` (the newest ${statistics.sampled} read)` : "");
}

async function loadDaemons() {
  const response = await fetch("/api/daemons", { headers: authHeaders() });
  if (!response.ok) return;
  const { daemons } = await response.json();
  $("daemons-box").hidden = !daemons;
  if (!daemons) return;
  fill("daemons", daemons.map((daemon) => {
    const row = document.createElement("tr");
    row.append(cell(daemon.host), cell(daemon.pid), cell(new Date(daemon.startedAt).toLocaleString()),
      cell(new Date(daemon.leaseExpiresAt).toLocaleTimeString()));
    return row;
  }), "no daemon holds a lease");
}

firstPage();
loadChart();
loadDaemons();
setInterval(() => { loadChart(); loadDaemons(); }, 10000);
// When jobs settle: the chart, and the first page (a later one stays as it was read, so that
// paging on is not disturbed). At most once a second however many flushes acknowledge jobs.
let settledRedrawPending = false;
document.addEventListener("lineup-jobs-settled", () => {
  if (settledRedrawPending) return;
  settledRedrawPending = true;
  setTimeout(() => {
    settledRedrawPending = false;
    loadChart();
    if (!browser.cursor) loadJobs();
  }, 1000);
});
