// The live picture: binary WebSocket frames, vector overlays, click to pick, drag for a zone.
import { $, api, openSocket, panel, say } from "./api.js";
import { loadSettings } from "./settings.js";

const RASTER = ["mask", "edges", "palette", "region", "blobs", "hands", "pose", "silhouette"];
const DRAG_MIN_PX = 6;
let videoSocket = null;

export function sendOverlays(ws = videoSocket) {
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

export function drawVideo() {
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

export function setupPointer() {
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

export function connectVideo() {
  openSocket("/ws/video", onVideo, true, (ws) => { videoSocket = ws; sendOverlays(ws); });
}
