// sensekit panel: live view, overlays, level graph, events, settings. Plain JS, no build step.
// Talks to sensekit/panel/server.py: /ws/video (binary frames), /ws/live (JSON), /api/*.
"use strict";

const $ = (id) => document.getElementById(id);
const RASTER = ["mask", "edges", "palette", "region"];
const MARKS = { clap: "#ffc640", clap_pattern: "#ff8a3d", activity: "#6be38a" };
const LINE_COLORS = ["#ff5a5a", "#c58cff", "#9096a8", "#46d7ff"];
const GRAPH_S = 10;
const DRAG_MIN_PX = 6;
const TOKEN_KEY = "sensekit-panel-token";

const panel = {
  token: null,
  info: null,
  shown: new Set(["box", "zones"]),
  frame: null,          // {bitmap, meta}
  drag: null,           // {x0, y0, x1, y1} camera pixels
  levels: [],           // [t, level]
  marks: [],            // {t, name}
  lines: {},
  table: null,          // /api/settings
  stats: { frames: 0, fps: 0, latency_ms: null, index: -1, received: [], latencies: [] },
};
window.sensekitPanel = panel;   // for tests and curious users

// -- token and API ----------------------------------------------------------------------------
function readToken() {
  const m = /(?:^|[#&])token=([^&]+)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
    history.replaceState(null, "", location.pathname);       // keep it out of the address bar
  }
  panel.token = sessionStorage.getItem(TOKEN_KEY);
}

function askToken(message) {
  $("tokenbar").hidden = false;
  $("token-error").textContent = message || "";
  setConn("needs token", "bad");
}

async function api(path, body) {
  const headers = {};
  if (panel.token) headers["X-Sensekit-Token"] = panel.token;
  const init = { method: body === undefined ? "GET" : "POST", headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    return { ok: false, status: 0, data: { error: "the piece is not reachable (" + err.message + ")" } };
  }
  let data = {};
  try { data = await res.json(); } catch (err) { data = { error: res.statusText }; }
  if (res.status === 401 || res.status === 403) askToken(data.error);
  return { ok: res.ok, status: res.status, data };
}

function wsUrl(path) {
  return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
}

function openSocket(path, onMessage, binary) {
  const ws = new WebSocket(wsUrl(path));
  if (binary) ws.binaryType = "arraybuffer";
  ws.onopen = () => {
    if (binary) videoSocket = ws;
    if (panel.token) ws.send(JSON.stringify({ token: panel.token }));
    if (binary) sendOverlays(ws);
    setConn("live", "ok");
  };
  ws.onmessage = (ev) => onMessage(ws, ev);
  ws.onclose = (ev) => {
    if (ev.code === 4401 || ev.code === 4403) { askToken(ev.reason); return; }
    setConn(ev.code === 1001 ? "piece stopped" : "reconnecting…", "bad");
    setTimeout(() => openSocket(path, onMessage, binary), 1000);
  };
  return ws;
}

function setConn(text, kind) {
  const el = $("conn");
  el.textContent = text;
  el.className = "pill " + (kind || "");
}

// -- video ------------------------------------------------------------------------------------
let videoSocket = null;

function sendOverlays(ws) {
  const raster = RASTER.filter((o) => panel.shown.has(o));
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ overlays: raster }));
}

function unpack(buffer) {
  const n = new DataView(buffer).getUint32(0);
  const meta = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, n)));
  return { meta, jpeg: new Uint8Array(buffer, 4 + n) };
}

async function onVideo(ws, ev) {
  const { meta, jpeg } = unpack(ev.data);
  let bitmap;
  try {
    bitmap = await createImageBitmap(new Blob([jpeg], { type: "image/jpeg" }));
  } finally {
    ws.send('{"ack":1}');
  }
  const old = panel.frame;
  panel.frame = { bitmap, meta };
  if (old && old.bitmap.close) old.bitmap.close();
  drawVideo();
  const s = panel.stats, now = performance.now();
  s.frames += 1;
  s.index = meta.index;
  s.latencies.push(Math.max(0, Date.now() - meta.tap_unix * 1000));
  if (s.latencies.length > 15) s.latencies.shift();
  s.latency_ms = [...s.latencies].sort((a, b) => a - b)[s.latencies.length >> 1];   // median
  s.received.push(now);
  while (s.received.length && now - s.received[0] > 2000) s.received.shift();
  s.fps = s.received.length > 1 ? (s.received.length - 1) * 1000 / (now - s.received[0]) : 0;
  $("video-stats").textContent = `${s.fps.toFixed(0)} fps · +${s.latency_ms.toFixed(0)} ms · ${meta.w}×${meta.h}` +
    (meta.computed && meta.computed.length ? ` · panel computed: ${meta.computed.join(", ")}` : "");
}

function drawVideo() {
  const f = panel.frame;
  if (!f) return;
  const c = $("video"), m = f.meta;
  if (c.width !== m.w || c.height !== m.h) { c.width = m.w; c.height = m.h; }
  const g = c.getContext("2d");
  g.drawImage(f.bitmap, 0, 0, m.w, m.h);
  const px = Math.max(1, m.w / 320);
  if (panel.shown.has("zones") && m.zones) {
    g.lineWidth = 1.5 * px;
    g.font = `${11 * px}px sans-serif`;
    for (const [name, b] of Object.entries(m.zones)) {
      g.strokeStyle = "rgba(70,215,255,.85)";
      g.setLineDash([4 * px, 3 * px]);
      g.strokeRect(b[0] + .5, b[1] + .5, b[2] - 1, b[3] - 1);
      g.setLineDash([]);
      g.fillStyle = "rgba(70,215,255,.95)";
      g.fillText(name, b[0] + 3 * px, b[1] + 12 * px);
    }
  }
  if (panel.shown.has("box") && m.box) {
    const b = m.box;
    g.lineWidth = 2 * px;
    g.strokeStyle = "#000";
    g.strokeRect(b[0], b[1], b[2], b[3]);
    g.lineWidth = 1 * px;
    g.strokeStyle = "#ffc640";
    g.strokeRect(b[0], b[1], b[2], b[3]);
  }
  const d = panel.drag;
  if (d) {
    g.lineWidth = 1.5 * px;
    g.strokeStyle = "#ffc640";
    g.setLineDash([5 * px, 3 * px]);
    g.strokeRect(Math.min(d.x0, d.x1), Math.min(d.y0, d.y1), Math.abs(d.x1 - d.x0), Math.abs(d.y1 - d.y0));
    g.setLineDash([]);
  }
}

function cameraPoint(ev) {
  const c = $("video"), r = c.getBoundingClientRect();
  return {
    x: Math.min(c.width - 1, Math.max(0, (ev.clientX - r.left) / r.width * c.width)),
    y: Math.min(c.height - 1, Math.max(0, (ev.clientY - r.top) / r.height * c.height)),
    sx: ev.clientX, sy: ev.clientY,
  };
}

function setupPointer() {
  const c = $("video");
  let start = null;
  c.addEventListener("pointerdown", (ev) => {
    if (!panel.frame) return;
    start = cameraPoint(ev);
    c.setPointerCapture(ev.pointerId);
  });
  c.addEventListener("pointermove", (ev) => {
    if (!start) return;
    const p = cameraPoint(ev);
    if (Math.hypot(p.sx - start.sx, p.sy - start.sy) >= DRAG_MIN_PX) {
      panel.drag = { x0: start.x, y0: start.y, x1: p.x, y1: p.y };
      drawVideo();
    }
  });
  const finish = async (ev) => {
    if (!start) return;
    const p = cameraPoint(ev), s = start;
    start = null;
    panel.drag = null;
    if (Math.hypot(p.sx - s.sx, p.sy - s.sy) < DRAG_MIN_PX) {
      await pick(s.x, s.y);
    } else {
      const box = [Math.min(s.x, p.x), Math.min(s.y, p.y), Math.abs(p.x - s.x) + 1, Math.abs(p.y - s.y) + 1]
        .map(Math.round);
      await dragged(box);
    }
    drawVideo();
  };
  c.addEventListener("pointerup", finish);
  c.addEventListener("pointercancel", () => { start = null; panel.drag = null; drawVideo(); });
}

function say(id, text, bad) {
  const el = $(id);
  el.textContent = text;
  el.className = "note" + (bad ? " error" : "");
}

async function pick(x, y) {
  const r = await api("/api/pick", { x: Math.round(x), y: Math.round(y) });
  if (r.ok) say("pick-result", r.data.message + (r.data.color ? ` (${r.data.color})` : ""));
  else say("pick-result", r.data.error, true);
}

async function dragged(box) {
  if ($("drag-mode").value === "track") {
    const r = await api("/api/track-box", { box });
    say("pick-result", r.ok ? r.data.message : r.data.error, !r.ok);
    return;
  }
  const name = $("zone-name").value.trim() || "zone1";
  const r = await api("/api/zone", { name, box });
  say("pick-result", r.ok ? `zone ${name} set to ${box.join(", ")} px` : r.data.error, !r.ok);
  if (r.ok) loadSettings();
}

// -- level graph and event log ----------------------------------------------------------------
function onLive(ws, ev) {
  const u = JSON.parse(ev.data);
  for (const p of u.levels) panel.levels.push(p);
  for (const e of u.events) {
    if (MARKS[e.event] && (e.event !== "activity" || e.activating)) panel.marks.push({ t: e.t, name: e.event });
    logEvent(e);
  }
  panel.lines = u.lines || {};
  const latest = panel.levels.length ? panel.levels[panel.levels.length - 1][0] : 0;
  while (panel.levels.length && panel.levels[0][0] < latest - GRAPH_S - 1) panel.levels.shift();
  while (panel.marks.length && panel.marks[0].t < latest - GRAPH_S - 1) panel.marks.shift();
  if (panel.levels.length && panel.levels[panel.levels.length - 1][0] < panel.levels[0][0]) panel.levels = [];
  const st = u.status || {};
  $("status").textContent = st.hud || (st.frame_fps !== undefined ? `${st.frame_fps} frames/s processed` : "");
  if (u.settings) updateValues(u.settings);
}

function drawLevels() {
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
  for (let s = Math.ceil(t0); s <= tEnd; s += 2) g.fillText(`${s}s`, X(s) + 2, c.height - 3 * dpr);
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
  for (const [n, col] of Object.entries(MARKS)) legend.push([n, col, "solid"]);
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

function fields(e) {
  return Object.entries(e).filter(([k]) => k !== "event" && k !== "t")
    .map(([k, v]) => `${k}=${typeof v === "number" ? +v.toFixed(3) : JSON.stringify(v)}`).join(" ");
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
  while (log.children.length > 200) log.removeChild(log.lastElementChild);
}

// -- settings ---------------------------------------------------------------------------------
function rangeText(s) {
  const unit = s.unit ? " " + s.unit : "";
  if (s.lo !== null && s.hi !== null) return `${s.lo}..${s.hi}${unit}`;
  if (s.lo !== null) return `≥ ${s.lo}${unit}`;
  return unit.trim();
}

function zonesText(z) {
  if (!z) return "";
  return Object.entries(z).map(([n, b]) => `${n}=${b.map((v) => +(+v).toFixed(4)).join(",")}`).join(";");
}

function makeControl(s, row) {
  const box = document.createElement("div");
  box.className = "control";
  const send = (value, asText) => setValue(s, row, value, asText);
  const inputs = [];
  if (s.kind === "float" || s.kind === "int") {
    const num = document.createElement("input");
    num.type = "number";
    num.dataset.role = "value";
    const step = s.kind === "int" ? 1 : (s.step || (s.lo !== null && s.hi !== null ? (s.hi - s.lo) / 200 : "any"));
    num.step = String(step);
    if (s.lo !== null) num.min = s.lo;
    if (s.hi !== null) num.max = s.hi;
    if (s.lo !== null && s.hi !== null) {
      const range = document.createElement("input");
      range.type = "range";
      range.min = s.lo; range.max = s.hi; range.step = String(step);
      range.dataset.role = "slider";
      range.setAttribute("aria-label", s.key);
      range.addEventListener("input", () => { num.value = range.value; });
      range.addEventListener("change", () => send(Number(range.value)));
      box.appendChild(range);
      inputs.push(range);
    }
    num.addEventListener("change", () => {
      if (num.value.trim() === "") send(null);
      else send(Number(num.value));
    });
    box.appendChild(num);
    inputs.push(num);
    if (s.none) {
      const lbl = document.createElement("label");
      const none = document.createElement("input");
      none.type = "checkbox";
      none.dataset.role = "none";
      none.addEventListener("change", () => { if (none.checked) send(null); else if (num.value !== "") send(Number(num.value)); });
      lbl.appendChild(none);
      lbl.append(" " + s.none);
      lbl.className = "unit";
      box.appendChild(lbl);
      inputs.push(none);
    }
  } else if (s.kind === "bool") {
    const cb = document.createElement("input");
    cb.type = "checkbox";
    cb.dataset.role = "value";
    cb.addEventListener("change", () => send(cb.checked));
    box.appendChild(cb);
    inputs.push(cb);
  } else if (s.kind === "choice") {
    const sel = document.createElement("select");
    sel.dataset.role = "value";
    for (const c of s.choices || []) {
      const o = document.createElement("option");
      o.value = o.textContent = c;
      sel.appendChild(o);
    }
    sel.addEventListener("change", () => send(sel.value));
    box.appendChild(sel);
    inputs.push(sel);
  } else if (s.kind === "color") {
    const col = document.createElement("input");
    col.type = "color";
    col.dataset.role = "value";
    col.addEventListener("change", () => send(col.value));
    box.appendChild(col);
    inputs.push(col);
  } else {
    const text = document.createElement("input");
    text.type = "text";
    text.dataset.role = "value";
    text.placeholder = s.kind === "zones" ? "name=x,y,w,h;… (fractions)" : "";
    text.addEventListener("change", () => send(text.value, true));
    box.appendChild(text);
    inputs.push(text);
  }
  const unit = document.createElement("span");
  unit.className = "unit";
  unit.textContent = rangeText(s);
  box.appendChild(unit);
  row.inputs = inputs;
  return box;
}

function showValue(s, row, v, force) {
  for (const el of row.inputs) {
    if (el === document.activeElement && !force) continue;      // the user is typing there
    const role = el.dataset.role;
    if (role === "none") el.checked = v === null;
    else if (el.type === "checkbox") el.checked = !!v;
    else if (s.kind === "zones") el.value = zonesText(v);
    else if (el.type === "color") el.value = v || "#000000";
    else el.value = v === null || v === undefined ? "" : String(v);
  }
  row.value = v;
}

async function setValue(s, row, value, asText) {
  const body = asText ? { texts: { [s.key]: value } } : { values: { [s.key]: value } };
  const r = await api("/api/set", body);
  row.el.classList.remove("applied", "rejected");
  void row.el.offsetWidth;
  if (r.ok) {
    row.error.textContent = "";
    row.el.classList.add("applied");
    const applied = (r.data.values || {})[s.key];
    showValue(s, row, applied === undefined ? value : applied);
  } else {
    row.error.textContent = r.data.error || `refused (${r.status})`;
    row.el.classList.add("rejected");
    showValue(s, row, row.value, true);  // nothing changed: show the value in use again
  }
}

const rows = {};

function renderSettings(table) {
  const root = $("settings");
  root.textContent = "";
  if (!table.groups.length) {
    const p = document.createElement("p");
    p.className = "muted";
    p.textContent = "This run has no settings to tune.";
    root.appendChild(p);
    return;
  }
  for (const grp of table.groups) {
    const det = document.createElement("details");
    det.open = true;
    det.dataset.section = grp.section;
    const sum = document.createElement("summary");
    sum.textContent = grp.section;
    const title = document.createElement("span");
    title.textContent = grp.title || "";
    sum.appendChild(title);
    det.appendChild(sum);
    for (const s of grp.settings) {
      const el = document.createElement("div");
      el.className = "setting";
      el.dataset.key = s.key;
      const name = document.createElement("label");
      name.className = "name";
      name.textContent = s.name;
      name.title = s.key;
      const row = { el, error: document.createElement("div") };
      const control = makeControl(s, row);
      const help = document.createElement("div");
      help.className = "help";
      help.textContent = s.help;
      row.error.className = "error";
      row.error.setAttribute("role", "alert");
      el.append(name, control, help, row.error);
      det.appendChild(el);
      rows[s.key] = { s, row };
      showValue(s, row, table.values[s.key]);
    }
    root.appendChild(det);
  }
}

function updateValues(values) {
  for (const [k, v] of Object.entries(values)) {
    const r = rows[k];
    if (r && JSON.stringify(r.row.value) !== JSON.stringify(v)) showValue(r.s, r.row, v);
  }
}

async function loadSettings() {
  const r = await api("/api/settings");
  if (!r.ok) { $("settings").textContent = r.data.error || "settings unavailable"; return; }
  panel.table = r.data;
  if (!Object.keys(rows).length || Object.keys(rows).length !== r.data.groups.reduce((n, g) => n + g.settings.length, 0)) {
    for (const k of Object.keys(rows)) delete rows[k];
    renderSettings(r.data);
  } else {
    updateValues(r.data.values);
  }
}

async function save() {
  say("save-result", "saving…");
  const r = await api("/api/save", {});
  say("save-result", r.ok ? `saved ${r.data.path}` : r.data.error, !r.ok);
}

// -- start ------------------------------------------------------------------------------------
async function start() {
  const r = await api("/api/info");
  if (!r.ok) return;
  $("tokenbar").hidden = true;
  panel.info = r.data;
  $("title").textContent = r.data.title || "sensekit panel";
  document.title = `${r.data.title || "sensekit"} - panel`;
  $("source").textContent = r.data.source || "";
  const inputs = r.data.inputs || [];
  $("view-card").hidden = !inputs.includes("video");
  $("audio-card").hidden = !inputs.includes("audio");
  videoSocket = inputs.includes("video") ? openSocket("/ws/video", onVideo, true) : null;
  openSocket("/ws/live", onLive, false);
  loadSettings();
}

function init() {
  readToken();
  for (const cb of document.querySelectorAll("#overlay-toggles input")) {
    cb.checked = panel.shown.has(cb.value);
    cb.addEventListener("change", () => {
      if (cb.checked) panel.shown.add(cb.value); else panel.shown.delete(cb.value);
      sendOverlays(videoSocket);
      drawVideo();
    });
  }
  $("tokenbar").addEventListener("submit", (ev) => {
    ev.preventDefault();
    panel.token = $("token").value.trim();
    sessionStorage.setItem(TOKEN_KEY, panel.token);
    start();
  });
  window.addEventListener("hashchange", () => { if (/token=/.test(location.hash)) { readToken(); start(); } });
  $("save").addEventListener("click", save);
  setupPointer();
  const frame = () => { drawLevels(); requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
  start();
}

init();
