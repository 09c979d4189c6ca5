// The teach card: record a few seconds of a hand shape per name from the live view, then learn
// and save to the venue profile (sensekit/panel/teach.py through POST /api/teach).
import { $, api, say } from "./api.js";

let polling = null;

function show(d) {
  $("teach-state").textContent = !d.recording ? "" : d.left_s === null
    ? `waiting for a hand to record ${d.recording}` : `recording ${d.recording}: ${d.left_s.toFixed(1)} s left`;
  const list = $("teach-classes");
  list.replaceChildren();
  for (const [name, n] of Object.entries(d.examples)) {
    const li = document.createElement("li");
    li.dataset.name = name;
    li.textContent = `${name}: ${n} hand frames `;
    const forget = document.createElement("button");
    forget.type = "button";
    forget.textContent = "forget";
    forget.addEventListener("click", () => send({ action: "forget", name }));
    li.appendChild(forget);
    list.appendChild(li);
  }
  $("teach-record").disabled = !!d.recording;
  $("teach-learn").disabled = !!d.recording || Object.values(d.examples).filter((n) => n > 0).length < 2;
  if (d.recording && !polling) polling = setInterval(() => send({ action: "status" }, true), 250);
  if (!d.recording && polling) { clearInterval(polling); polling = null; }
}

async function send(body, quiet = false) {
  const r = await api("/api/teach", body);
  if (!r.ok) { say("teach-result", r.data.error, true); return; }
  show(r.data);
  if (!quiet && r.data.message) say("teach-result", r.data.message);
}

export function offerTeach(info) {
  $("teach-card").hidden = !info.teach;
  if (info.teach) send({ action: "status" }, true);
}

export function setupTeach() {
  $("teach-record").addEventListener("click", () => send({
    action: "record", name: $("teach-name").value.trim(), seconds: Number($("teach-seconds").value) }));
  $("teach-learn").addEventListener("click", () => send({ action: "learn" }));
}
