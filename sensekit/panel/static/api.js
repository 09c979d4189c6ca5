// The panel's state, its token and its calls to the server (sensekit/panel/server.py).
export const $ = (id) => document.getElementById(id);
const TOKEN_KEY = "sensekit-panel-token";

export const panel = {
  token: null,
  info: null,
  shown: new Set(["box", "zones", "pose"]),
  frame: null,          // {bitmap, meta}
  drag: null,           // {x0, y0, x1, y1} camera pixels
  levels: [],           // [t, level]
  marks: [],            // {t, name}
  markKinds: new Set(), // the marked event kinds seen (the legend lists these and info.emits')
  lines: {},
  table: null,          // /api/settings
  stats: { frames: 0, fps: 0, latency_ms: null, index: -1, received: [], latencies: [] },
};
window.sensekitPanel = panel;   // for tests and curious users

export function readToken() {
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

export async function api(path, body) {
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

export function openSocket(path, onMessage, binary, onOpen) {
  const ws = new WebSocket(wsUrl(path));
  if (binary) ws.binaryType = "arraybuffer";
  ws.onopen = () => {
    if (panel.token) ws.send(JSON.stringify({ token: panel.token }));
    if (onOpen) onOpen(ws);
    setConn("connected", "ok");       // not "live": a replay is connected too
  };
  ws.onmessage = (ev) => onMessage(ws, ev);
  ws.onclose = (ev) => {
    if (ev.code === 4401 || ev.code === 4403) { askToken(ev.reason); return; }
    setConn(ev.code === 1001 ? "piece stopped" : "reconnecting…", "bad");
    setTimeout(() => openSocket(path, onMessage, binary, onOpen), 1000);
  };
  return ws;
}

export function setConn(text, kind) {
  const el = $("conn");
  el.textContent = text;
  el.className = "pill " + (kind || "");
}

export function say(id, text, bad) {
  const el = $(id);
  el.textContent = text;
  el.className = "note" + (bad ? " error" : "");
}

export function saveToken(token) {
  panel.token = token;
  sessionStorage.setItem(TOKEN_KEY, token);
}
