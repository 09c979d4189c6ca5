// sensekit panel: live view, overlays, level graph, events, settings. Plain JS modules, no build
// step. Talks to sensekit/panel/server.py: /ws/video (binary frames), /ws/live (JSON), /api/*.
import { $, api, openSocket, panel, readToken, saveToken } from "./api.js";
import { onLive, drawLevels } from "./live.js";
import { loadSettings, save } from "./settings.js";
import { offerTeach, setupTeach } from "./teach.js";
import { offerSoundTeach, setupSoundTeach } from "./teach_sound.js";
import { connectVideo, drawVideo, sendOverlays, setupPointer } from "./video.js";

async function start() {
  const r = await api("/api/info");
  if (!r.ok) return;
  $("tokenbar").hidden = true;
  panel.info = r.data;
  $("title").textContent = r.data.title || "sensekit panel";
  document.title = `${r.data.title || "sensekit"} - panel`;
  // one mirroring rule: the picture is what the stages saw, mirrored when the piece mirrors
  const inputs = r.data.inputs || [];
  $("source").textContent = (r.data.source || "") + (r.data.mirrored && inputs.includes("video") ? " · mirrored" : "");
  $("view-card").hidden = !inputs.includes("video");
  $("audio-card").hidden = !inputs.includes("audio");
  if (inputs.includes("video")) { offerOverlays(r.data.offered_overlays); connectVideo(); }
  // the events card, before its first event: what it will list, or why it stays empty
  $("log-empty").textContent = (r.data.listed || []).length
    ? `no events yet (this run lists ${r.data.listed.join(", ")})`
    : "this run emits no events to list: its sound level is the graph above";
  offerTeach(r.data);
  offerSoundTeach(r.data);
  openSocket("/ws/live", onLive, false);
  loadSettings();
}

// only the overlays the piece can draw (no "zones" without a motion detector, no tracked box
// without a tracker), and drag modes to match
function offerOverlays(offered) {
  if (!offered) return;
  for (const cb of document.querySelectorAll("#overlay-toggles input")) {
    const on = offered.includes(cb.value);
    cb.closest("label").hidden = !on;
    if (!on) { cb.checked = false; panel.shown.delete(cb.value); }
  }
  const modes = { zone: offered.includes("zones"), track: offered.includes("box") };
  for (const o of $("drag-mode").options) { o.hidden = o.disabled = !modes[o.value]; }
  const first = [...$("drag-mode").options].find((o) => !o.disabled);
  if (first) $("drag-mode").value = first.value;
  $("drag-row").hidden = !first;
  $("zone-name").closest("label").hidden = !modes.zone;
  // a click picks only where a stage tracks (a piece without a tracker answers "does not track")
  const tracks = offered.includes("box");
  const drag = first ? `set ${first.value === "zone" ? "a zone" : "what to track"}` : "";
  const hint = tracks ? "Click the picture to pick a colour" + (first ? `; drag on it to ${drag}.` : ".")
    : first ? `Drag on the picture to ${drag}.` : "";
  $("pick-result").textContent = hint;
  $("resize-row").hidden = !tracks;
  $("video").setAttribute("aria-label", "live camera view" + (hint ? `: ${hint.toLowerCase().replace(/\.$/, "")}` : ""));
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
  setupTeach();
  setupSoundTeach();
  const frame = () => { drawLevels(); requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
  start();
}

init();
