// The level graph (last 10 s, thresholds, noise floor, event marks) and the event log.
import { $, panel } from "./api.js";
import { updateInUse, updateValues } from "./settings.js";

const MARKS = { clap: "#ffc640", clap_pattern: "#ff8a3d", activity: "#6be38a" };
const LINE_COLORS = ["#ff5a5a", "#c58cff", "#9096a8", "#46d7ff"];
const GRAPH_S = 10;

export function onLive(ws, ev) {
  const u = JSON.parse(ev.data);
  for (const p of u.levels) panel.levels.push(p);
  for (const e of u.events) {
    if (MARKS[e.event]) panel.markKinds.add(e.event);
    if (MARKS[e.event] && (e.event !== "activity" || e.activating)) panel.marks.push({ t: e.t, name: e.event });
    logEvent(e);
  }
  panel.lines = u.lines || {};
  const latest = panel.levels.length ? panel.levels[panel.levels.length - 1][0] : 0;
  while (panel.levels.length && panel.levels[0][0] < latest - GRAPH_S - 1) panel.levels.shift();
  while (panel.marks.length && panel.marks[0].t < latest - GRAPH_S - 1) panel.marks.shift();
  if (panel.levels.length && panel.levels[panel.levels.length - 1][0] < panel.levels[0][0]) panel.levels = [];
  const st = u.status || {};
  const line = st.hud || (st.frame_fps !== undefined ? `${st.frame_fps} frames/s processed` : "");
  $("status").textContent = st.warning ? `warning: ${st.warning}. ${line}` : line;
  if (u.settings) updateValues(u.settings);
  if (u.in_use) updateInUse(u.in_use);
}

export function drawLevels() {
  const c = $("levels");
  const w = Math.round(c.clientWidth * devicePixelRatio), h = Math.round(c.clientHeight * devicePixelRatio);
  if (w > 0 && (c.width !== w || c.height !== h)) { c.width = w; c.height = h; }
  const g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  const pts = panel.levels;
  const dpr = devicePixelRatio, padB = 14 * dpr;
  const tEnd = pts.length ? pts[pts.length - 1][0] : 0, t0 = tEnd - GRAPH_S;
  const X = (t) => (t - t0) / GRAPH_S * c.width;
  const Y = (v) => (c.height - padB) - Math.min(100, Math.max(0, v)) / 100 * (c.height - padB - 4 * dpr);
  g.font = `${10 * dpr}px sans-serif`;
  g.fillStyle = "#5b6173";
  // seconds before the newest point, as the apps' graphs say it: the source's own clock can be
  // anywhere (a looped replay, a run started long ago; before the first second it was negative)
  // (a label that would run into "now", as "2 s ago" does on a narrow phone, is left out)
  const nowLeft = c.width - 2 - g.measureText("now").width;
  for (let ago = GRAPH_S - 2; ago >= 2; ago -= 2) {
    const label = `${ago} s ago`, x = X(tEnd - ago) + 2;
    if (x + g.measureText(label).width + 6 * dpr <= nowLeft) g.fillText(label, x, c.height - 3 * dpr);
  }
  g.textAlign = "right";
  g.fillText("now", c.width - 2, c.height - 3 * dpr);
  g.textAlign = "left";
  let i = 0;
  const legend = [];
  for (const [name, v] of Object.entries(panel.lines)) {
    const color = LINE_COLORS[i++ % LINE_COLORS.length];
    g.strokeStyle = color;
    g.lineWidth = 1.5 * dpr;
    g.setLineDash([6 * dpr, 4 * dpr]);
    g.beginPath(); g.moveTo(0, Y(v)); g.lineTo(c.width, Y(v)); g.stroke();
    legend.push([`${name} ${v.toFixed(0)}`, color, "dashed"]);
  }
  g.setLineDash([]);
  for (const m of panel.marks) {
    if (m.t < t0) continue;
    g.strokeStyle = MARKS[m.name];
    g.lineWidth = 2 * dpr;
    g.beginPath(); g.moveTo(X(m.t), 2 * dpr); g.lineTo(X(m.t), c.height - padB); g.stroke();
  }
  if (pts.length > 1) {
    g.strokeStyle = "#46d7ff";
    g.lineWidth = 1.5 * dpr;
    g.beginPath();
    let first = true;
    for (const [t, v] of pts) {
      if (t < t0) continue;
      if (first) { g.moveTo(X(t), Y(v)); first = false; } else g.lineTo(X(t), Y(v));
    }
    g.stroke();
    $("level-now").textContent = `level ${pts[pts.length - 1][1].toFixed(0)}`;
  }
  // only the marks this run can make (sound_flier emits no clap) or has made
  const emits = (panel.info && panel.info.emits) || [];
  for (const [n, col] of Object.entries(MARKS)) {
    if (emits.includes(n) || panel.markKinds.has(n)) legend.push([n, col, "solid"]);
  }
  showLegend(legend);
}

let legendKey = "";

function showLegend(items) {
  const key = JSON.stringify(items);
  if (key === legendKey) return;
  legendKey = key;
  const root = $("legend");
  root.textContent = "";
  for (const [text, color, style] of items) {
    const span = document.createElement("span"), swatch = document.createElement("i");
    swatch.style.borderColor = color;
    swatch.style.borderTopStyle = style;
    span.append(swatch, text);
    root.appendChild(span);
  }
}

// a list of points (a pose's 33 landmarks, a hand's 21) is summed up, not printed: the live view draws it
const summary = (v) => typeof v === "number" ? +v.toFixed(3)
  : Array.isArray(v) && v.length > 4 && Array.isArray(v[0]) ? `[${v.length} points]` : JSON.stringify(v);

function fields(e) {
  return Object.entries(e).filter(([k]) => k !== "event" && k !== "t").map(([k, v]) => `${k}=${summary(v)}`).join(" ");
}

const MERGE_S = 1.0;     // an event this soon after one of its name, near the top, joins its row

function logEvent(e) {
  const log = $("log");
  for (let row = log.firstElementChild, k = 0; row && k < 8; row = row.nextElementSibling, k++) {
    if (row.dataset.name === e.event && e.t - +row.dataset.t < MERGE_S) {
      row.dataset.count = String(+row.dataset.count + 1);
      row.dataset.t = String(e.t);
      row.querySelector(".t").textContent = e.t.toFixed(2);
      row.querySelector(".f").textContent = fields(e);
      row.querySelector(".x").textContent = `×${row.dataset.count}`;
      if (row !== log.firstElementChild) log.insertBefore(row, log.firstElementChild);
      return;
    }
  }
  const top = log.firstElementChild;
  const li = document.createElement("li");
  li.dataset.name = e.event;
  li.dataset.count = "1";
  li.dataset.t = String(e.t);
  const parts = [["t", e.t.toFixed(2)], ["n", e.event], ["f", fields(e)], ["x", ""]];
  for (const [cls, text] of parts) {
    const span = document.createElement("span");
    span.className = cls;
    span.textContent = text;
    li.appendChild(span);
  }
  log.insertBefore(li, top);
  $("log-empty").hidden = true;
  while (log.children.length > 200) log.removeChild(log.lastElementChild);
}
