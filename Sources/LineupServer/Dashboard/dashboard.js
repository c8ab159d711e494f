// The lineupd dashboard: renders the `status` events of /api/events as they come, lists the
// daemon's events, and calls the actions of /api with the token typed in the header. Every
// text from the daemon goes in with textContent: job names and failure reasons are data.
"use strict";

const $ = (id) => document.getElementById(id);
const tokenField = $("token");
tokenField.value = sessionStorage.getItem("lineupd-token") || "";
tokenField.addEventListener("change", () => sessionStorage.setItem("lineupd-token", tokenField.value.trim()));
$("token-form").addEventListener("submit", (event) => event.preventDefault());

function cell(text, className) {
  const td = document.createElement("td");
  td.textContent = text == null ? "" : String(text);
  if (className) td.className = className;
  return td;
}

function jobLink(name, label) {
  const link = document.createElement("a");
  link.href = "#job/" + encodeURIComponent(name);
  link.textContent = label;
  return link;
}

function say(text, kind) {
  const message = $("message");
  message.textContent = text;
  message.dataset.kind = kind || "info";
}

/// Fills a table's body with `rows`, or one row that says there are none.
function fill(table, rows, none) {
  const body = $(table).tBodies[0];
  if (rows.length > 0) { body.replaceChildren(...rows); return; }
  const row = document.createElement("tr");
  const td = cell(none, "muted");
  td.colSpan = $(table).tHead.rows[0].cells.length;
  row.append(td);
  body.replaceChildren(row);
}

function render(status) {
  renderControls(status);
  const counts = status.counts || {};
  for (const key of ["queued", "running", "done", "failed"]) $("count-" + key).textContent = counts[key] ?? "–";
  const daemon = status.daemon;
  $("count-awaiting").textContent = daemon ? daemon.awaitingFlush : "–";
  $("daemon-line").textContent = daemon
    ? `daemon pid ${daemon.pid}, ${daemon.phase}; status of ${new Date(daemon.updatedAt).toLocaleTimeString()}`
    : "no daemon status yet";
  const flush = daemon && daemon.lastFlush;
  $("flush-line").textContent = flush
    ? `last flush ${new Date(flush.at).toLocaleTimeString()} (${flush.reason}): ` +
      (flush.succeeded ? `${flush.rowsWritten} rows, ${flush.acknowledged} jobs acknowledged` : `FAILED: ${flush.error}`)
    : "no flush yet";

  $("unsaved-line").textContent = daemon && daemon.mainContextUnsavedRows != null
    ? `${daemon.mainContextUnsavedRows} rows in the main context, written by the next flush` : "";
  renderThroughput((daemon && daemon.acknowledgedPerMinute) || []);
  fill("flushes", ((daemon && daemon.recentFlushes) || []).map((flush) => {
    const row = document.createElement("tr");
    row.append(cell(new Date(flush.at).toLocaleTimeString()), cell(flush.reason), cell(flush.rowsWritten),
      cell(flush.acknowledged), cell(flush.milliseconds), cell(flush.succeeded ? "ok" : "FAILED: " + flush.error));
    return row;
  }), "no flush has written anything yet");

  fill("running", ((daemon && daemon.running) || []).map((entry) => {
    const row = document.createElement("tr");
    const name = document.createElement("td");
    name.append(jobLink(entry.job.name, entry.job.id || entry.job.name));
    const progress = document.createElement("td");
    const bar = document.createElement("progress");
    const done = entry.progress.completedUnitCount, total = entry.progress.totalUnitCount;
    if (total > 0) { bar.max = total; bar.value = done; }
    // An import knows its count only at the end: the bar moves back and forth meanwhile.
    progress.append(bar, total > 0 ? ` ${done}/${total}` : ` ${done}`);
    progress.className = "progress";
    const actions = document.createElement("td");
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.textContent = "cancel";
    cancel.dataset.action = "cancel";
    cancel.dataset.job = entry.job.name;
    cancel.addEventListener("click", () =>
      act(`/api/jobs/${encodeURIComponent(entry.job.id || entry.job.name)}/cancel`, `cancel ${entry.job.id || entry.job.name}`));
    actions.append(cancel);
    row.append(name, cell(entry.job.kind), cell(entry.job.attempt), progress, actions);
    return row;
  }), "no job is running");
}

/// One bar a minute, the tallest the busiest minute of the hour.
function renderThroughput(perMinute) {
  const svg = $("throughput");
  const most = Math.max(1, ...perMinute);
  const width = 240 / 60;
  svg.replaceChildren(...perMinute.map((count, minute) => {
    const bar = document.createElementNS("http://www.w3.org/2000/svg", "rect");
    const height = count === 0 ? 0 : Math.max(1, (count / most) * 38);
    bar.setAttribute("x", String(minute * width));
    bar.setAttribute("width", String(width - 0.5));
    bar.setAttribute("y", String(40 - height));
    bar.setAttribute("height", String(height));
    const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
    title.textContent = `${count} jobs, ${60 - minute} min ago`;
    bar.append(title);
    return bar;
  }));
  $("throughput-total").textContent = String(perMinute.reduce((sum, count) => sum + count, 0));
}

async function loadScheduled() {
  const response = await fetch("/api/scheduled", { headers: authHeaders() });
  if (!response.ok) return;
  const { scheduled, recurring } = await response.json();
  $("scheduled-section").hidden = scheduled.length === 0 && recurring.length === 0;
  fill("scheduled", scheduled.map((job) => {
    const row = document.createElement("tr");
    const name = document.createElement("td");
    name.append(jobLink(job.name, job.id || job.name));
    row.append(name, cell(job.kind), cell(new Date(job.notBefore).toLocaleString()));
    return row;
  }), "no job waits for its time");
  fill("recurring", recurring.map((job) => {
    const row = document.createElement("tr");
    row.append(cell(job.name), cell(job.kind), cell(job.schedule),
      cell(job.lastFireTime ? new Date(job.lastFireTime).toLocaleString() : "never"));
    return row;
  }), "no cron job");
}

async function loadPictures() {
  const response = await fetch("/api/pictures", { headers: authHeaders() });
  if (!response.ok) return;
  const pictures = await response.json();
  $("pictures-section").hidden = pictures.length === 0;
  const token = tokenField.value.trim();
  $("pictures").replaceChildren(...pictures.map((picture) => {
    const figure = document.createElement("figure");
    const image = document.createElement("img");
    // A new URL each time it changes, so that the browser draws the new one.
    image.src = picture.url + "?at=" + encodeURIComponent(picture.modifiedAt) + (token ? "&token=" + encodeURIComponent(token) : "");
    image.alt = picture.name;
    const caption = document.createElement("figcaption");
    caption.textContent = `${picture.name}, ${new Date(picture.modifiedAt).toLocaleString()}`;
    figure.append(image, caption);
    return figure;
  }));
}

async function loadFailed() {
  const response = await fetch("/api/failed", { headers: authHeaders() });
  if (!response.ok) return;
  const failures = await response.json();
  fill("failed", failures.map((failure) => {
    const row = document.createElement("tr");
    const name = document.createElement("td");
    name.append(jobLink(failure.name, failure.id || failure.name));
    const actions = document.createElement("td");
    for (const action of ["retry", "discard"]) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = action;
      button.dataset.action = action;
      button.dataset.job = failure.name;
      button.addEventListener("click", () =>
        act(`/api/jobs/${encodeURIComponent(failure.name)}/${action}`, `${action} ${failure.id || failure.name}`));
      actions.append(button, " ");
    }
    row.append(name, cell(failure.kind), cell(failure.attempts), cell(new Date(failure.finishedAt).toLocaleString()),
      cell(failure.reason, "reason"), actions);
    return row;
  }), "no failed job");
}

function authHeaders() {
  const token = tokenField.value.trim();
  return token ? { Authorization: "Bearer " + token } : {};
}

async function act(path, what) {
  const response = await fetch(path, { method: "POST", headers: authHeaders() });
  const text = await response.text();
  if (response.ok) {
    say(`${what}: done`);
  } else {
    let reason = text;
    try { reason = JSON.parse(text).error.message; } catch (_) { /* not JSON: the text itself */ }
    say(`${what}: refused (${response.status}) ${reason}`, "error");
  }
  loadFailed();
}

$("flush").addEventListener("click", () => act("/api/flush", "flush"));

function scopePath(action, scope) {
  const colon = scope.indexOf(":");
  return `/api/${action}/${scope.slice(0, colon)}/${encodeURIComponent(scope.slice(colon + 1))}`;
}

$("pause-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $("pause-name").value.trim();
  if (name) act(scopePath("pause", `${$("pause-level").value}:${name}`), `pause ${$("pause-level").value}:${name}`);
});

function renderControls(status) {
  fill("paused", (status.paused || []).map((scope) => {
    const row = document.createElement("tr");
    const actions = document.createElement("td");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "resume";
    button.dataset.action = "resume";
    button.dataset.scope = scope;
    button.addEventListener("click", () => act(scopePath("resume", scope), `resume ${scope}`));
    actions.append(button);
    row.append(cell(scope), actions);
    return row;
  }), "nothing paused");
  const daemon = status.daemon;
  fill("limits", ((daemon && daemon.limits) || []).map((limit) => {
    const row = document.createElement("tr");
    row.append(cell(limit.scope),
      cell(limit.maxRunning != null ? `${limit.running} / ${limit.maxRunning}` : `${limit.running}`),
      cell(limit.rate != null ? `${limit.claimedInPeriod ?? 0} / ${limit.rate} per ${limit.period} s` : "–"),
      cell(limit.holdingBack ? "yes" : "no"));
    return row;
  }), "no limit configured");
}

async function showJob() {
  const match = location.hash.match(/^#job\/(.+)$/);
  $("job-section").hidden = !match;
  if (!match) return;
  const name = decodeURIComponent(match[1]);
  $("job-title").textContent = "Job " + name;
  const response = await fetch(`/api/jobs/${encodeURIComponent(name)}`, { headers: authHeaders() });
  const box = $("job");
  if (!response.ok) { box.textContent = `no job ${name} (${response.status})`; return; }
  box.replaceChildren(...(await response.json()).map((job) => {
    const part = document.createElement("div");
    const where = document.createElement("p");
    where.textContent = `${job.directory}/${job.fileName}: ${job.state}, failed attempts ${job.failedAttempts}, interruptions ${job.interruptions}`;
    const file = document.createElement("pre");
    file.textContent = job.file ?? "(unreadable)";
    part.append(where, file);
    const report = job.result || job.failure;
    if (report) {
      const pre = document.createElement("pre");
      pre.textContent = JSON.stringify(report, null, 2);
      part.append(pre);
    }
    if (job.log && job.log.length > 0) {
      const log = document.createElement("pre");
      log.className = "log";
      log.textContent = job.log.map((line) => {
        const extra = Object.entries(line.metadata).map(([key, value]) => `${key}=${value}`).join(" ");
        return `${new Date(line.time).toLocaleTimeString()} ${line.level} ${line.message}${extra ? " " + extra : ""}`;
      }).join("\n");
      part.append(log);
    }
    return part;
  }));
}
window.addEventListener("hashchange", showJob);

function connect() {
  const token = tokenField.value.trim();
  const events = new EventSource("/api/events" + (token ? "?token=" + encodeURIComponent(token) : ""));
  const connection = $("connection");
  events.addEventListener("open", () => { connection.dataset.state = "live"; connection.textContent = "live"; });
  events.addEventListener("error", () => { connection.dataset.state = "lost"; connection.textContent = "reconnecting…"; });
  events.addEventListener("status", (event) => render(JSON.parse(event.data)));
  const log = $("events");
  const noteEvent = (event) => {
    const data = JSON.parse(event.data);
    if (data.type === "flushed" && data.flush.rowsWritten === 0 && data.flush.acknowledged === 0) return;
    const item = document.createElement("li");
    const who = data.job ? ` ${data.job.id || data.job.name}` : "";
    item.textContent = `${new Date().toLocaleTimeString()} ${data.type}${who}${data.detail ? ": " + data.detail : ""}`;
    log.prepend(item);
    while (log.children.length > 200) log.lastChild.remove();
    if (data.type === "jobFailed" || data.type === "flushed") loadFailed();
    if (data.type === "jobAcknowledged") loadPictures();
    // The job browser's chart (browser.js) redraws when jobs settle, not only on its timer.
    if (data.type === "flushed" && data.flush.acknowledged > 0) document.dispatchEvent(new Event("lineup-jobs-settled"));
    if (data.type === "jobScheduled" || data.type === "jobClaimed" || data.type === "reloaded") loadScheduled();
  };
  for (const type of ["started", "jobClaimed", "jobWaiting", "jobStarted", "jobFinished", "retryScheduled", "jobFailed",
    "jobAcknowledged", "jobReleased", "jobScheduled", "flushed", "flushFailed", "reloaded", "stopping", "stopped"]) {
    events.addEventListener(type, noteEvent);
  }
}

loadFailed();
loadScheduled();
loadPictures();
showJob();
connect();
