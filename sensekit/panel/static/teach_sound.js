// The sound card: record a sound a few times per name from the live audio, then save it to the
// venue profile; the running voice stage hears it at once (sensekit/panel/teach_sound.py through
// POST /api/teach-sound).
import { $, api, say } from "./api.js";

let polling = null;

function show(d) {
  $("sound-state").textContent = d.recording
    ? `recording ${d.recording}: ${(d.examples[d.recording] || []).length} of 5` : "";
  const list = $("sound-names");
  list.replaceChildren();
  for (const [name, lengths] of Object.entries(d.examples)) {
    const li = document.createElement("li");
    li.dataset.name = name;
    li.textContent = `${name}: ${lengths.length} caught (${lengths.map((s) => `${s.toFixed(2)} s`).join(", ")}) `;
    const forget = document.createElement("button");
    forget.type = "button";
    forget.textContent = "forget";
    forget.addEventListener("click", () => send({ action: "forget", name }));
    li.appendChild(forget);
    list.appendChild(li);
  }
  $("sound-stop").disabled = !d.recording;
  $("sound-learn").disabled = !Object.values(d.examples).some((l) => l.length >= 2);
  if (d.recording && !polling) polling = setInterval(() => send({ action: "status" }, true), 250);
  if (!d.recording && polling) { clearInterval(polling); polling = null; }
}

async function send(body, quiet = false) {
  const r = await api("/api/teach-sound", body);
  if (!r.ok) { say("sound-result", r.data.error, true); return; }
  show(r.data);
  if (!quiet && r.data.message) say("sound-result", r.data.message);
}

export function offerSoundTeach(info) {
  $("sound-card").hidden = !info.teach_sound;
  if (info.teach_sound) send({ action: "status" }, true);
}

export function setupSoundTeach() {
  $("sound-record").addEventListener("click", () => send({ action: "record", name: $("sound-name").value }));
  $("sound-stop").addEventListener("click", () => send({ action: "stop" }));
  $("sound-learn").addEventListener("click", () => send({ action: "learn" }));
}
