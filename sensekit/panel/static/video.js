// The live picture: binary WebSocket frames, vector overlays, click to pick, drag for a zone.
import { $, api, openSocket, panel, say } from "./api.js";
import { loadSettings } from "./settings.js";

// "pose" is not composed on the server: the page draws the skeletons from the header (drawPoses)
const RASTER = ["mask", "edges", "palette", "region", "blobs", "hands", "silhouette"];
const DRAG_MIN_PX = 6;
// MediaPipe Pose's 33 landmarks: the body's bones (the face is drawn as its nose point only)
const BONES = [[11, 12], [11, 13], [13, 15], [15, 17], [15, 19], [15, 21], [17, 19], [12, 14], [14, 16],
  [16, 18], [16, 20], [16, 22], [18, 20], [11, 23], [12, 24], [23, 24], [23, 25], [24, 26], [25, 27],
  [26, 28], [27, 29], [28, 30], [29, 31], [30, 32], [27, 31], [28, 32]];
const SEEN = 0.5;   // a point MediaPipe marks less visible is not drawn (the body events ignore it too)
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
  // a rate over less than half a second is noise (two frames handled in one task read "Infinity fps")
  const span = s.received.length > 1 ? now - s.received[0] : 0;
  s.fps = span >= 500 ? (s.received.length - 1) * 1000 / span : 0;
  const rate = s.fps > 0 ? `${s.fps.toFixed(0)} fps` : s.received.length < 2 && s.frames > 1 ? "under 1 fps" : "measuring fps";
  $("video-stats").textContent = `${rate} · ${s.latency_ms.toFixed(0)} ms behind · ${meta.w}×${meta.h}` +
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
      // the name on a dark backing: cyan alone vanished on a light wall or a white shelf
      g.fillStyle = "rgba(12,14,20,.75)";
      g.fillRect(b[0] + 1.5 * px, b[1] + 1.5 * px, g.measureText(name).width + 3 * px, 13 * px);
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
  if (panel.shown.has("pose") && m.poses) drawPoses(g, m.poses, px);
  const d = panel.drag;
  if (d) {
    g.lineWidth = 1.5 * px;
    g.strokeStyle = "#ffc640";
    g.setLineDash([5 * px, 3 * px]);
    g.strokeRect(Math.min(d.x0, d.x1), Math.min(d.y0, d.y1), Math.abs(d.x1 - d.x0), Math.abs(d.y1 - d.y0));
    g.setLineDash([]);
  }
}

// one colour per id, as the blobs overlay (layers.blob_colour: hue id*47 on OpenCV's 0..180)
const idColour = (id, a = 1) => `hsla(${((id * 47) % 180) * 2}, 100%, 60%, ${a})`;

function drawPoses(g, poses, px) {
  g.lineCap = "round";
  g.font = `bold ${7 * px}px sans-serif`;
  for (const { id, points } of poses) {
    const seen = (i) => points[i] && points[i][2] >= SEEN;
    g.lineWidth = 3.5 * px;
    g.strokeStyle = "rgba(0,0,0,.55)";
    for (const pass of [0, 1]) {
      if (pass) { g.lineWidth = 2 * px; g.strokeStyle = idColour(id); }
      g.beginPath();
      for (const [a, b] of BONES) {
        if (!seen(a) || !seen(b)) continue;
        g.moveTo(points[a][0], points[a][1]);
        g.lineTo(points[b][0], points[b][1]);
      }
      g.stroke();
    }
    g.fillStyle = idColour(id);
    for (let i = 0; i < points.length; i++) {
      if (i > 0 && i < 11) continue;                 // eyes, ears, mouth: the nose stands for the face
      if (!seen(i)) continue;
      g.beginPath();
      g.arc(points[i][0], points[i][1], 2.5 * px, 0, 2 * Math.PI);
      g.fill();
    }
    const shown = points.filter((p) => p[2] >= SEEN);
    if (!shown.length) continue;
    // the id above the head, centred on the body (people side by side keep their labels apart)
    const cx = shown.reduce((s, p) => s + p[0], 0) / shown.length, top = Math.min(...shown.map((p) => p[1]));
    const label = `person ${id}`, w = g.measureText(label).width + 4 * px, h = 9.5 * px;
    const x = Math.min(Math.max(0, cx - w / 2), g.canvas.width - w), ty = Math.max(0, top - h - 4 * px);
    g.fillStyle = idColour(id, .9);
    g.fillRect(x, ty, w, h);
    g.fillStyle = "#000";
    g.fillText(label, x + 2 * px, ty + 7.5 * px);
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
  // the wheel over the picture, or the two buttons: the clicked object's next larger / smaller box
  c.addEventListener("wheel", (ev) => {
    if (!panel.frame || ev.deltaY === 0) return;
    ev.preventDefault();
    resize(ev.deltaY < 0 ? 1 : -1);
  }, { passive: false });
  $("resize-larger").addEventListener("click", () => resize(1));
  $("resize-smaller").addEventListener("click", () => resize(-1));
  c.addEventListener("pointercancel", () => { start = null; panel.drag = null; drawVideo(); });
}
async function pick(x, y) {
  const r = await api("/api/pick", { x: Math.round(x), y: Math.round(y) });
  if (r.ok) say("pick-result", r.data.message + (r.data.color ? ` (${r.data.color})` : ""));
  else say("pick-result", r.data.error, true);
}

async function resize(step) {
  const r = await api("/api/resize", { step });
  say("pick-result", r.ok ? r.data.message : r.data.error, !r.ok);
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
