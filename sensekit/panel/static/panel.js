// sensekit panel: live view, overlays, level graph, events, settings. Plain JS modules, no build
// step. Talks to sensekit/panel/server.py: /ws/video (binary frames), /ws/live (JSON), /api/*.
import { $, api, openSocket, panel, readToken, saveToken } from "./api.js";
import { onLive, drawLevels } from "./live.js";
import { loadSettings, save } from "./settings.js";
import { connectVideo, drawVideo, sendOverlays, setupPointer } from "./video.js";

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
  if (inputs.includes("video")) connectVideo();
  openSocket("/ws/live", onLive, false);
  loadSettings();
}

function init() {
  readToken();
  for (const cb of document.querySelectorAll("#overlay-toggles input")) {
    cb.checked = panel.shown.has(cb.value);
    cb.addEventListener("change", () => {
      if (cb.checked) panel.shown.add(cb.value); else panel.shown.delete(cb.value);
      sendOverlays();
      drawVideo();
    });
  }
  $("tokenbar").addEventListener("submit", (ev) => {
    ev.preventDefault();
    saveToken($("token").value.trim());
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
